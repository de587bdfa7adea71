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

# Help text $1 with each wrapped option description joined onto its option's line.
joined() {
	awk '/^    / && prev != "" { prev = prev " " substr($0, 30); next }
	     { if (prev != "") print prev; prev = $0 } END { if (prev != "") print prev }' "$1"
}

# The names in section "# $2" of man page $1: "## NAME" subsections (tables),
# or the "*name*(N)" references (SEE ALSO).
man_subsections() {
	awk -v head="# $2" '$0 == head { on = 1; next } on && /^# / { exit } on && /^## / { print $2 }' "$1"
}
see_also() {
	awk '$0 == "# SEE ALSO" { on = 1; next } on && /^# / { exit } on' "$1" |
		grep -o '\*[A-Za-z0-9_-]*\*([0-9])' | tr -d '*'
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

sed -n 's/^  --\([A-Za-z0-9_-]*\).*/\1/p' "$tmp/help" >"$tmp/global-all"
: >"$tmp/late"

# Commands.
section "$tmp/help" "Commands:" | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p' >"$tmp/commands"
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
	# The other way: every option the page's OPTIONS section describes exists.
	sed -n 's/^  --\([A-Za-z0-9_-]*\).*/\1/p' "$tmp/help-$cmd" >"$tmp/all-opts-$cmd"
	awk '$0 == "# OPTIONS" { on = 1; next } on && /^# / { exit } on' "$page" |
		sed -n 's/^\*--\([A-Za-z0-9_-]*\)\*.*/\1/p' | while read -r opt; do
		grep -qx -- "$opt" "$tmp/all-opts-$cmd" || grep -qx -- "$opt" "$tmp/global-all" ||
			echo "FAIL: man/xpstat-$cmd.1.scd describes --$opt, which 'xpstat $cmd' does not have"
	done >>"$tmp/late"
	# Tables: --help names those the page's TABLES section describes.
	if [ "$cmd" != report ]; then
		help_tables=$(awk '/^Tables:/ { on = 1; sub(/^Tables:/, "") } on && /^$/ { exit } on' "$tmp/help-$cmd" |
			tr -s ' \n' '\n\n' | sed '/^$/d' | sort | tr '\n' ' ')
		man_tables=$(man_subsections "$page" TABLES | sort | tr '\n' ' ')
		if [ "$help_tables" != "$man_tables" ]; then
			fail "'xpstat $cmd --help' names tables '$help_tables', man/xpstat-$cmd.1.scd '$man_tables'"
		fi
	fi
	# Examples use only options the command has.
	awk '/^Examples:/ { on = 1; next } on && /^$/ { exit } on' "$tmp/help-$cmd" >"$tmp/examples-$cmd"
	if [ ! -s "$tmp/examples-$cmd" ]; then
		fail "'xpstat $cmd --help' shows no examples"
	fi
	grep -o -- ' --[a-z-]*' "$tmp/examples-$cmd" | sed 's/^ --//' | while read -r opt; do
		grep -qx -- "$opt" "$tmp/all-opts-$cmd" ||
			echo "FAIL: an example in 'xpstat $cmd --help' uses --$opt, which it does not list"
	done >>"$tmp/late"
	# SEE ALSO: back to xpstat(1), and only pages that exist.
	see_also "$page" | grep -qx 'xpstat(1)' || fail "man/xpstat-$cmd.1.scd: SEE ALSO does not name xpstat(1)"
done <"$tmp/commands"
if [ -s "$tmp/late" ]; then
	cat "$tmp/late"
	fails=$((fails + $(wc -l <"$tmp/late")))
fi

# SEE ALSO of every page names pages that exist; xpstat(1) names them all.
for page in "$man"/*.scd; do
	see_also "$page" | grep '^xpstat' | while read -r ref; do
		name=${ref%(*}
		sec=${ref#*(}
		sec=${sec%)}
		[ -f "$man/$name.$sec.scd" ] || echo "FAIL: ${page##*/}: SEE ALSO names $ref, which has no page"
	done
done >"$tmp/refs"
if [ -s "$tmp/refs" ]; then
	cat "$tmp/refs"
	fails=$((fails + $(wc -l <"$tmp/refs")))
fi
for page in "$man"/xpstat-*.scd; do
	[ -e "$page" ] || continue
	base=${page##*/}
	ref="${base%.*.scd}(${base#*.}"
	ref=${ref%.scd}")"
	if [ -f "$man/xpstat.1.scd" ] && ! see_also "$man/xpstat.1.scd" | grep -qxF "$ref"; then
		fail "man/xpstat.1.scd: SEE ALSO does not name $ref"
	fi
done

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
	joined "$tmp/help" | sed -n 's/^  --.*also \(-[A-Za-z0-9]\).*/\1/p' | while read -r short; do
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
