# xpstat.bash - bash completion for xpstat: commands, options and their values, read from `xpstat help`.
_xpstat()
{
	local cur prev cmd i words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) case ${COMP_WORDS[i-1]} in
		   --format|--output|--host|--run|--table|--threads|--color|--charts|--max-input-bytes|--step-marker|--compat|-o|-j|-f) ;;
		   *) cmd=${COMP_WORDS[i]}; break ;;
		   esac ;;
		esac
	done
	case $prev in
	--format|-f) COMPREPLY=($(compgen -W "text csv json junit markdown html" -- "$cur")); return ;;
	--color|--charts) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	--compat) COMPREPLY=($(compgen -W "xpstat xprof" -- "$cur")); return ;;
	--table)
		words=$(xpstat help "${cmd:-info}" 2>/dev/null | awk '/^Tables:/ { on = 1; sub(/^Tables:/, "") } on && /^$/ { exit } on')
		COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
	--output|-o|--baseline) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--host|--run|--threads|-j|--max-input-bytes|--step-marker|--top|--points) return ;;
	esac
	if [[ -z $cmd && $cur != -* ]]; then
		words=$(xpstat --help 2>/dev/null | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "help $words" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		if [[ -n $cmd ]]; then
			words=$(xpstat help "$cmd" 2>/dev/null | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p')
		else
			words=$(xpstat --help 2>/dev/null | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p')
		fi
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	if [[ $cmd == help ]]; then
		words=$(xpstat --help 2>/dev/null | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _xpstat xpstat
