# bash completion for arcturn(1)
#
# make install puts this file in PREFIX/share/bash-completion/completions/
# as `arcturn`, where bash-completion loads it on first use; without
# bash-completion, source it from ~/.bashrc. It completes the commands,
# their options and option values, session ids (from `arcturn session
# list`) and paths, and runs the command it completes for (after exec's
# options) through bash-completion's own completion when that is loaded.
# If arcturn cannot be run or fails, session ids are simply not offered.

# The arcturn to ask for session ids: the one typed, when it is a path to
# an executable, else the one on PATH.
_arcturn_bin()
{
	case $1 in
	*/*) [ -x "$1" ] && { printf '%s\n' "$1"; return; } ;;
	esac
	printf 'arcturn\n'
}

# Session ids, one a line: the first column of the lines of `arcturn
# session list` that read "ID PENDING WORKSPACE" (ids are lower-case
# letters, digits and dashes; the header is not, nor is anything else).
_arcturn_sessions()
{
	"$(_arcturn_bin "$1")" session list 2>/dev/null </dev/null |
		awk 'NF >= 3 && $1 ~ /^[a-z0-9][a-z0-9-]*$/ && $2 ~ /^[0-9]+$/ { print $1 }'
}

# COMPREPLY from the words of $1 that start with $2.
_arcturn_words()
{
	local IFS=$' \t\n'
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# COMPREPLY: paths (dirs only with -d) that start with $cur.
_arcturn_paths()
{
	if declare -F _filedir >/dev/null; then
		if [ "${1:-}" = -d ]; then _filedir -d; else _filedir; fi
		return
	fi
	compopt -o filenames 2>/dev/null
	if [ "${1:-}" = -d ]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

_arcturn()
{
	local cur words=() at=() cword=0 i w
	local globals='-C --session --json -q --quiet -h --help --version'

	# Words up to the cursor, with `--opt=value` kept whole (bash splits
	# words at "=" by COMP_WORDBREAKS); at[n]: where word n starts in
	# COMP_WORDS. A value after "=" is completed on its own, as readline
	# completes only what follows the "=".
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((i > 0)) && [[ ${words[cword - 1]} == --* ]] &&
		    [[ $w == = || ${words[cword - 1]} == --*= ]]; then
			words[cword - 1]+=$w
		else
			at[cword]=$i
			words[cword++]=$w
		fi
	done
	cword=$((cword - 1))
	cur=${words[cword]}
	COMPREPLY=()

	# The global options, then the command.
	local bin=${words[0]} cmd= ci=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-C | --session) ((i++)) ;;
		-C?* | --session=* | --json | -q | --quiet) ;;
		-*) ;;
		*) cmd=${words[i]} ci=$i; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		case ${words[cword - 1]} in
		-C) _arcturn_paths -d; return ;;
		--session) _arcturn_words "$(_arcturn_sessions "$bin")" "$cur"; return ;;
		esac
		case $cur in
		--session=*)
			_arcturn_words "$(_arcturn_sessions "$bin")" "${cur#*=}"
			return ;;
		-*) _arcturn_words "$globals" "$cur" ;;
		*) _arcturn_words "exec sandbox write edit read diff apply discard session turn rewind undo checkpoints mcp" "$cur" ;;
		esac
		return
	fi

	# The command's own words after the command name.
	local prev=${words[cword - 1]} nargs=0 sub= dashdash=0
	for ((i = ci + 1; i < cword; i++)); do
		case ${words[i]} in
		--) dashdash=1; break ;;
		--sandbox | --grant | --network | --allow-unix | --cwd | --old | \
		    --new | --expect | --label | --progress-fd)
			((i++)) ;;
		-*) ;;
		*)
			[ -n "$sub" ] || sub=${words[i]}
			nargs=$((nargs + 1))
			[ "$cmd" = exec ] && break ;;
		esac
	done

	case $cmd in
	exec)
		if [ $dashdash = 1 ] || [ $nargs -gt 0 ]; then
			# CMD [ARG]...: the command's own completion
			for ((i = ci + 1; i < cword; i++)); do
				case ${words[i]} in
				--) i=$((i + 1)); break ;;
				--sandbox | --grant | --network | --allow-unix | --cwd) ((i++)) ;;
				-*) ;;
				*) break ;;
				esac
			done
			if declare -F _command_offset >/dev/null; then
				_command_offset "${at[i]}"
			elif [ "$i" = "$cword" ]; then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				_arcturn_paths
			fi
			return
		fi
		case $prev in
		--sandbox) _arcturn_words "off workspace-write read-only" "$cur"; return ;;
		--network) _arcturn_words "on off" "$cur"; return ;;
		--grant | --cwd) _arcturn_paths -d; return ;;
		--allow-unix) _arcturn_paths; return ;;
		esac
		case $cur in
		--sandbox=*) _arcturn_words "off workspace-write read-only" "${cur#*=}" ;;
		--network=*) _arcturn_words "on off" "${cur#*=}" ;;
		-*) _arcturn_words "--sandbox --grant --dry-run --checkpoint --join-turn --require-sandbox --network --allow-unix --cwd --explain --json-fd -- --help -h" "$cur" ;;
		*) mapfile -t COMPREPLY < <(compgen -c -- "$cur") ;;
		esac
		;;
	sandbox)
		if [ -z "$sub" ]; then
			case $cur in
			-*) _arcturn_words "--help -h" "$cur" ;;
			*) _arcturn_words "status unstamp" "$cur" ;;
			esac
		elif [ "$sub" = status ] && [ $nargs = 1 ]; then
			_arcturn_words "--json" "$cur"
		elif [ "$sub" = unstamp ] && [ $nargs = 1 ]; then
			_arcturn_paths -d
		fi
		;;
	write | read)
		[ "$prev" = --expect-sha256 ] && return
		case $cur in
		-*) if [ "$cmd" = write ]; then
			_arcturn_words "--dry-run --expect-sha256 --help -h" "$cur"
		    else
			_arcturn_words "--dry-run --help -h" "$cur"
		    fi ;;
		*) [ $nargs = 0 ] && _arcturn_paths ;;
		esac
		;;
	edit)
		case $prev in
		--old | --new) return ;;
		esac
		case $cur in
		--old=* | --new=*) ;;
		-*) _arcturn_words "--old --new --all --dry-run --help -h" "$cur" ;;
		*) [ $nargs = 0 ] && _arcturn_paths ;;
		esac
		;;
	diff)
		case $cur in
		--colo*=*)
			_arcturn_words "auto always never" "${cur#*=}" ;;
		-*) _arcturn_words "--full --stat --name-only --name-status --no-pager --color --colour --help -h" "$cur" ;;
		*) _arcturn_paths ;;
		esac
		;;
	apply)
		case $prev in
		--expect | --progress-fd) return ;;
		esac
		case $cur in
		--expect=* | --progress-fd=*) ;;
		-*) _arcturn_words "--yes -y --expect --force --progress-fd --help -h" "$cur" ;;
		*) _arcturn_paths ;;
		esac
		;;
	discard)
		case $cur in
		-*) _arcturn_words "--yes -y --help -h" "$cur" ;;
		*) _arcturn_paths ;;
		esac
		;;
	session)
		if [ -z "$sub" ]; then
			case $cur in
			-*) _arcturn_words "--help -h" "$cur" ;;
			*) _arcturn_words "list show rm" "$cur" ;;
			esac
		elif [ "$sub" = rm ] && [[ $cur == -* ]]; then
			_arcturn_words "--yes -y --help -h" "$cur"
		elif [ $nargs = 1 ] && { [ "$sub" = show ] || [ "$sub" = rm ]; }; then
			_arcturn_words "$(_arcturn_sessions "$bin")" "$cur"
		fi
		;;
	turn)
		case $prev in
		--label) return ;;
		esac
		case $cur in
		--label=*) ;;
		-*) _arcturn_words "--label --help -h" "$cur" ;;
		esac
		;;
	rewind | undo)
		# a turn id is a number (arcturn checkpoints lists them)
		case $cur in
		-*) _arcturn_words "--force --help -h" "$cur" ;;
		esac
		;;
	checkpoints)
		case $cur in
		-*) _arcturn_words "--json --prune-damaged --help -h" "$cur" ;;
		esac
		;;
	mcp)
		case $cur in
		-*) _arcturn_words "--dry-run --allow-apply --max-output --help -h" "$cur" ;;
		esac
		;;
	esac
}
complete -F _arcturn arcturn
