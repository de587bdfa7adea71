#!/bin/sh
# check_progress.sh - progress through the binary: on a terminal it is decided by the inflated size (a small
# .gz that inflates past 256 MiB shows it, the same bytes plain and small do not), in MiB, with "file N of M".
# Usage: check_progress.sh XPSTAT
set -u
xpstat=$1
command -v script >/dev/null 2>&1 || { echo "skip: no script(1) to give xpstat a terminal"; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# 300 MiB of zeros: about 300 KiB gzipped. Not a capture (exit 3), but progress comes before the reading.
head -c 314572800 /dev/zero | gzip -1 >"$work/big.xplane.pb.gz"
head -c 1048576 /dev/zero >"$work/small.xplane.pb"
fail=0
script -qec "$xpstat info $work/big.xplane.pb.gz" /dev/null >"$work/big.out" 2>&1
grep -q 'reading file 1 of 1 (0% of 300.0 MiB): big.xplane.pb.gz, 300.0 MiB' "$work/big.out" ||
	{ echo "FAIL: no progress for a .gz that inflates to 300 MiB:"; cat "$work/big.out"; fail=1; }
script -qec "$xpstat info $work/small.xplane.pb" /dev/null >"$work/small.out" 2>&1
grep -q 'reading file' "$work/small.out" && { echo "FAIL: progress for a 1 MiB input"; fail=1; }
script -qec "$xpstat info -q $work/big.xplane.pb.gz" /dev/null >"$work/quiet.out" 2>&1
grep -q 'reading file' "$work/quiet.out" && { echo "FAIL: progress despite -q"; fail=1; }
# Not a terminal: none, unless XPSTAT_PROGRESS=1 forces one line per file.
"$xpstat" info "$work/big.xplane.pb.gz" >/dev/null 2>"$work/pipe.err"
grep -q 'reading file' "$work/pipe.err" && { echo "FAIL: progress on a pipe"; fail=1; }
XPSTAT_PROGRESS=1 "$xpstat" info "$work/big.xplane.pb.gz" >/dev/null 2>"$work/forced.err"
grep -q 'reading file 1 of 1 (0% of 300.0 MiB): big.xplane.pb.gz, 300.0 MiB$' "$work/forced.err" ||
	{ echo "FAIL: XPSTAT_PROGRESS=1:"; cat "$work/forced.err"; fail=1; }
[ $fail = 0 ] && echo "progress: ok"
exit $fail
