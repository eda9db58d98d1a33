#!/usr/bin/env zsh
# Complete a command line with zsh's real completion system, as at a
# prompt: complete.zsh FPATH_DIR OUT LINE... An interactive zsh in a
# pseudo terminal (zsh/zpty) loads compinit with FPATH_DIR first on
# $fpath; for the Nth LINE, the line is cleared, LINE and a TAB are
# typed, and every match the completion functions add (builtin compadd,
# after matching against what was typed) is written to OUT.N, one a line.
# Exit 1 when the shell does not answer.
# ZCOMPDUMP names compinit's dump file, made on first use and trusted
# after (compinit -C): scanning every completion function takes seconds.
emulate -L zsh
zmodload zsh/zpty || exit 2
dir=$1 outp=$2
shift 2
zpty z zsh -f -i || exit 2
zpty -w z 'PS1="" PROMPT="" RPROMPT="" LISTMAX=100000; bindkey -e; unsetopt auto_list'
if [[ -n $ZCOMPDUMP ]]; then
	zpty -w z "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -C -u -d ${(q)ZCOMPDUMP}"
else
	zpty -w z "fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
fi
# Each match goes out as <m>MATCH; <done> ends one completion. compadd
# called only to query (-O, -A, -D) passes straight through. The markers
# are typed in two quoted halves, so that the terminal's echo of what is
# typed (early, before zsh's line editor takes the terminal) never holds
# one: only what the shell prints does.
zpty -w z 'compadd() {
	if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
	local -a __m; local __x
	builtin compadd -A __m "$@"
	for __x in $__m; do print -r -- "<""m>$__x"; done
	builtin compadd "$@"
}'
zpty -w z '_t_complete() { _complete; local r=$?; print -r -- "<do""ne>"; return r }'
zpty -w z "zstyle ':completion:*' completer _t_complete"
zpty -w z 'print -r -- "<rea""dy>"'
zpty -r z out '*<ready>*' || exit 1
n=0
for line in "$@"; do
	n=$((n + 1))
	zpty -n -w z $'\C-u'"$line"$'\t'
	zpty -r z out '*<done>*' || exit 1
	: >"$outp.$n"
	for l in ${(f)out}; do
		l=${l//$'\r'/}
		[[ $l == *'<m>'* ]] && print -r -- "${l#*<m>}" >>"$outp.$n"
	done
done
zpty -d z
exit 0
