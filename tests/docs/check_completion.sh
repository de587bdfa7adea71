#!/bin/bash
# check_completion.sh - the bash completion completes commands, options and values from the real binary,
# and `meson install` installs the bash and zsh scripts.
# Usage: check_completion.sh XPSTAT SOURCE_ROOT BUILD_ROOT
set -u
xpstat=$1 root=$2 build=$3
fails=0
bin=$(mktemp -d) || exit 1
trap 'rm -rf "$bin"' EXIT
ln -s "$(cd "$(dirname "$xpstat")" && pwd)/$(basename "$xpstat")" "$bin/xpstat"
PATH=$bin:$PATH
complete() { :; }  # the script's own `complete` line needs an interactive shell
# shellcheck source=/dev/null
. "$root/cmd/completion/xpstat.bash"

# expect "WORDS..." "WANT": completing the last word of WORDS gives WANT (space-separated, sorted).
expect() {
	read -r -a COMP_WORDS <<<"$1"
	case $1 in *' ') COMP_WORDS+=("") ;; esac
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_xpstat
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ')
	got=${got% }
	if [ "$got" != "$2" ]; then
		echo "FAIL: completing '$1': got '$got', want '$2'"
		fails=$((fails + 1))
	fi
}

expect "xpstat overv" "overview"
expect "xpstat he" "help"
expect "xpstat help kernel-" "kernel-stats"
expect "xpstat kernel-stats --so" "--sort"
expect "xpstat --form" "--format"
expect "xpstat steps --format j" "json junit"
expect "xpstat memory --table b" "breakdown"
expect "xpstat steps --tab" ""   # --table does not apply to steps (one table)
expect "xpstat overview --step-m" "--step-marker"

# Installed where bash-completion and zsh look.
if command -v meson >/dev/null 2>&1; then
	installed=$(meson introspect "$build" --installed 2>/dev/null)
	for want in share/bash-completion/completions/xpstat share/zsh/site-functions/_xpstat; do
		case $installed in
		*"$want"*) ;;
		*) echo "FAIL: meson install does not install $want"; fails=$((fails + 1)) ;;
		esac
	done
fi
[ "$fails" -eq 0 ] || exit 1
echo "ok: completion"
