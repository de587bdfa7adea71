#!/bin/sh
# quickstart.sh - on a fresh Debian 12 machine: install the packages that are
# missing, build xpstat, and run it on the bundled sample capture.
#
# Usage: ./tools/quickstart.sh
# Installing packages needs root, or sudo. Run it again at any time: it only
# installs what is missing and rebuilds what changed.
set -eu

cd "$(dirname "$0")/.."

PACKAGES="build-essential meson ninja-build pkg-config libprotobuf-c-dev \
protobuf-c-compiler libcjson-dev libzstd-dev libcsv-dev zlib1g-dev scdoc \
python3 python3-jsonschema clang"
SAMPLE=testdata/sample

say() {
	echo "quickstart: $*"
}

# 1. Packages.
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
	for p in $PACKAGES; do
		if ! dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
			missing="$missing $p"
		fi
	done
else
	say "not a Debian system (no dpkg-query); make sure these are installed: $PACKAGES" >&2
fi
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		say "missing packages:$missing" >&2
		say "run this script as root, or install sudo" >&2
		exit 1
	fi
	say "installing:$missing"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086 # one word per package
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
else
	say "all packages are installed"
fi

# 2. Build.
if [ -f build/build.ninja ]; then
	meson setup --reconfigure build || meson setup --wipe build
else
	meson setup build
fi
ninja -C build

# 3. The main job, on the bundled sample (a logdir with one run).
if [ ! -d "$SAMPLE" ]; then
	say "$SAMPLE is missing: the build worked, but there is no sample to run on" >&2
	exit 1
fi
say "running: build/cmd/xpstat info $SAMPLE, then build/cmd/xpstat overview $SAMPLE"
echo
build/cmd/xpstat info "$SAMPLE"
echo
exec build/cmd/xpstat overview "$SAMPLE"
