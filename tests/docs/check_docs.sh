#!/bin/sh
# check_docs.sh - the man pages and `xpstat --help` agree with the command table.
#
# Usage: check_docs.sh XPSTAT SOURCE_ROOT
#
# Checks:
#  - every command in `xpstat --help` ("Commands:") has man/xpstat-CMD.1.scd
#    and is referenced as xpstat-CMD(1) in man/xpstat.1.scd;
#  - every man/xpstat-*.1.scd page belongs to a command;
#  - every global option of `xpstat --help` (and its short alias, "also -X")
#    appears in man/xpstat.1.scd;
#  - `xpstat CMD --help` exits 0, prints "Usage: xpstat CMD", and every
#    option in its "Options:" section appears in man/xpstat-CMD.1.scd;
#  - every man/*.scd page is listed in man/meson.build;
#  - when scdoc is installed, every man/*.scd page converts without error.
# Exits 0 when all agree, 1 with the list of mismatches otherwise.

set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 XPSTAT SOURCE_ROOT" >&2
	exit 2
fi
xpstat=$1
root=$2
man=$root/man
fails=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# The lines of section $2 ("Commands:", "Options:") of help text $1, up to the
# next blank line.
section() {
	awk -v head="$2" '
		$0 == head { on = 1; next }
		on && $0 == "" { exit }
		on { print }
	' "$1"
}

# Does file $1 mention option --$2 as a whole word (not as a prefix of a
# longer option)?
has_option() {
	grep -Eq -- "--$2([^A-Za-z0-9_-]|\$)" "$1"
}

if ! "$xpstat" --help >"$tmp/help" 2>"$tmp/help.err"; then
	fail "'xpstat --help' exits with status $? (want 0)"
fi
if [ ! -f "$man/xpstat.1.scd" ]; then
	fail "man/xpstat.1.scd is missing"
fi

# Commands.
section "$tmp/help" "Commands:" | awk '{ print $1 }' >"$tmp/commands"
if [ ! -s "$tmp/commands" ]; then
	fail "'xpstat --help' lists no commands under \"Commands:\""
fi
while read -r cmd; do
	page=$man/xpstat-$cmd.1.scd
	if [ ! -f "$page" ]; then
		fail "command '$cmd' has no man page man/xpstat-$cmd.1.scd"
	fi
	if [ -f "$man/xpstat.1.scd" ] && ! grep -Eq "xpstat-$cmd\\**\\(1\\)" "$man/xpstat.1.scd"; then
		fail "command '$cmd' is not referenced as xpstat-$cmd(1) in man/xpstat.1.scd"
	fi

	# The command's own help.
	if ! "$xpstat" "$cmd" --help >"$tmp/help-$cmd" 2>"$tmp/help-$cmd.err"; then
		fail "'xpstat $cmd --help' exits with status $? (want 0)"
	fi
	if ! grep -Eq "^Usage: xpstat $cmd( |\$)" "$tmp/help-$cmd"; then
		fail "'xpstat $cmd --help' does not print 'Usage: xpstat $cmd'"
	fi
	[ -f "$page" ] || continue
	section "$tmp/help-$cmd" "Options:" | sed -n 's/^  --\([A-Za-z0-9_-]*\).*/\1/p' >"$tmp/opts-$cmd"
	while read -r opt; do
		if ! has_option "$page" "$opt"; then
			fail "option --$opt of 'xpstat $cmd' is not in man/xpstat-$cmd.1.scd"
		fi
	done <"$tmp/opts-$cmd"
done <"$tmp/commands"

# Pages without a command.
for page in "$man"/xpstat-*.1.scd; do
	[ -e "$page" ] || continue
	name=${page##*/xpstat-}
	name=${name%.1.scd}
	if ! grep -qx "$name" "$tmp/commands"; then
		fail "man/xpstat-$name.1.scd has no command '$name' in 'xpstat --help'"
	fi
done

# Global options and their short aliases ("also -o").
sed -n 's/^  --\([A-Za-z0-9_-]*\).*/\1/p' "$tmp/help" >"$tmp/global"
if [ ! -s "$tmp/global" ]; then
	fail "'xpstat --help' lists no options"
fi
if [ -f "$man/xpstat.1.scd" ]; then
	while read -r opt; do
		if ! has_option "$man/xpstat.1.scd" "$opt"; then
			fail "global option --$opt is not in man/xpstat.1.scd"
		fi
	done <"$tmp/global"
	sed -n 's/^  --.*also \(-[A-Za-z0-9]\).*/\1/p' "$tmp/help" | while read -r short; do
		if ! grep -Eq -- "(^|[^A-Za-z0-9-])\\*?$short\\*?([^A-Za-z0-9-]|\$)" "$man/xpstat.1.scd"; then
			echo "FAIL: short option $short is not in man/xpstat.1.scd"
		fi
	done >"$tmp/short"
	if [ -s "$tmp/short" ]; then
		cat "$tmp/short"
		fails=$((fails + $(wc -l <"$tmp/short")))
	fi
fi

# Every page is built.
if [ -f "$man/meson.build" ]; then
	for page in "$man"/*.scd; do
		[ -e "$page" ] || continue
		base=${page##*/}
		base=${base%.scd}
		if ! grep -q "'$base'" "$man/meson.build"; then
			fail "man/$base.scd is not in man_pages in man/meson.build"
		fi
	done
fi

# Every page converts.
if command -v scdoc >/dev/null 2>&1; then
	for page in "$man"/*.scd; do
		[ -e "$page" ] || continue
		if ! scdoc <"$page" >/dev/null 2>"$tmp/scdoc.err"; then
			fail "scdoc rejects man/${page##*/}: $(head -n 1 "$tmp/scdoc.err")"
		fi
	done
else
	echo "note: scdoc not found; man pages not converted"
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails mismatch(es) between the man pages and 'xpstat --help'"
	exit 1
fi
echo "ok: $(wc -l <"$tmp/commands") commands, $(wc -l <"$tmp/global") global options, man pages agree"
exit 0
