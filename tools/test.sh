#!/usr/bin/env bash
# tools/test.sh - the whole test suite, as CI runs it (.ci/run calls this): install dependencies, build a normal and a sanitizer build, run every suite but bench in both.
# Ends with one line "N passed, N failed[, N skipped]"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)

packages=(build-essential meson ninja-build pkg-config libprotobuf-c-dev protobuf-c-compiler
	libcjson-dev libzstd-dev libcsv-dev zlib1g-dev zstd scdoc python3 python3-jsonschema clang jq
	chromium chromium-driver python3-selenium python3-markdown fonts-dejavu-core
	parallel slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	echo "ci: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq || exit 1
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 1
fi

# The browser suite must run here, not skip: its packages are installed above.
export XPSTAT_REQUIRE_BROWSER=1

status=0
run_build() { # name, setup options...
	local dir=$1
	shift
	rm -rf "$dir"
	meson setup "$dir" --wrap-mode=nodownload "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
	ninja -C "$dir" || return 1
	meson test -C "$dir" --no-suite bench --print-errorlogs --num-processes 2 || return 1
}

echo "ci: normal build (gcc, -Werror)"
run_build "$root/build-ci" -Dwerror=true || status=1
echo "ci: sanitizer build (clang, ASan+UBSan)"
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:print_summary=1:halt_on_error=1
CC=clang run_build "$root/build-ci-asan" --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true || status=1

/usr/bin/python3 - "$root/build-ci" "$root/build-ci-asan" <<'PY' || status=1
import json, sys, os
passed = failed = skipped = 0
for d in sys.argv[1:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        failed += 1
        continue
    for line in open(log):
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
exit $status
