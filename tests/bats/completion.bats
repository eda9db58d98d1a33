#!/usr/bin/env bats
# The bash, zsh and fish completions of release/completions, each driven
# through its shell's own completion machinery: bash (COMP_WORDS and
# COMP_CWORD set as readline would, the function called, COMPREPLY read;
# with and without bash-completion loaded), zsh (compinit in a pseudo
# terminal, a TAB typed, every match compadd gets printed: complete.zsh)
# and fish (complete -C). Each must offer every command, subcommand and
# option that `arcturn --help` and `arcturn CMD --help` name, the option
# values, session ids from `arcturn session list`, paths and, after exec's
# options, the command to run; and each file must name every option of the
# getopt tables in src/, so a new option fails here until it is added.

load common
load docs

setup_file() {
	# compinit's dump, made by the first zsh test (see complete.zsh)
	export ZCOMPDUMP=$BATS_FILE_TMPDIR/zcompdump
}

setup() {
	common_setup
	docs_setup
	C=$RELEASE_DIR/completions
	# `arcturn` on PATH, and a program only this test has
	mkdir -p "$T/bin"
	ln -s "$ARCTURN_BIN" "$T/bin/arcturn"
	printf '#!/bin/sh\n' >"$T/bin/arcturn-test-prog"
	chmod +x "$T/bin/arcturn-test-prog"
	export PATH=$T/bin:$PATH ARCTURN_HOME=$T/home/.arcturn
	mkdir -p src
	echo a >notes.txt
	echo b >src/main.c
}

need() {
	command -v "$1" >/dev/null ||
		fail "$1 is missing: install it (sh vendor/need.sh completion.bats does)"
}

# Complete each LINE (at its end) in shell $1, in one process of that
# shell; the completions of the Nth LINE go to $T/comp.N, one a line.
comp_batch() {
	local sh=$1
	shift
	rm -f "$T"/comp.*
	case $sh in
	bash) comp_bash 0 "$@" ;;
	bash-completion) comp_bash 1 "$@" ;;
	zsh) timeout 120 zsh "$BATS_TEST_DIRNAME/complete.zsh" "$C" "$T/comp" "$@" ;;
	fish) fish -N -c '
		set -l f $argv[1]
		set -l out $argv[2]
		source $f; or exit 2
		for i in (seq 3 (count $argv))
			complete -C"$argv[$i]" | string replace -r "\t.*" "" >$out.(math $i - 2)
		end
		exit 0' "$C/arcturn.fish" "$T/comp" "$@" ;;
	esac
}

# Completions of one LINE, one a line, for shell $1.
comp() {
	comp_batch "$1" "$2" && cat "$T/comp.1"
}

# bash: the words as readline splits them (each "=" a word of its own,
# as COMP_WORDBREAKS has it), the function complete -p names called,
# COMPREPLY written out.
comp_bash() {	# with-bash-completion line...
	bash --norc --noprofile -c '
		if [ "$1" = 1 ]; then
			. /usr/share/bash-completion/bash_completion || exit 2
		fi
		. "$2" || exit 2
		# outside a completion readline started, compopt only complains
		compopt() { :; }
		fn=$(complete -p arcturn | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		[ -n "$fn" ] || exit 3
		out=$3
		shift 3
		n=0
		for line in "$@"; do
			n=$((n + 1))
			read -ra w <<<"$line"
			[[ $line == *" " ]] && w+=("")
			COMP_WORDS=()
			for x in "${w[@]}"; do
				while [[ $x == *=* ]]; do
					[ -n "${x%%=*}" ] && COMP_WORDS+=("${x%%=*}")
					COMP_WORDS+=("=")
					x=${x#*=}
				done
				[ -n "$x" ] || [ "${#COMP_WORDS[@]}" -eq 0 ] ||
					[ "${COMP_WORDS[-1]}" = = ] || COMP_WORDS+=("")
				[ -n "$x" ] && COMP_WORDS+=("$x")
			done
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE=$line COMP_POINT=${#line}
			COMPREPLY=()
			"$fn" arcturn "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			printf "%s\n" "${COMPREPLY[@]}" >"$out.$n"
		done
	' bash "$1" "$C/arcturn.bash" "$T/comp" "${@:2}"
}

# The values offered, one a line, sorted; "--color=auto" counts as "auto".
values() {
	comp "$1" "$2" | sed 's/^--[a-z-]*=//' | grep -v '^$' | sort -u
}

# What the completions must offer, from the help, one a line:
# LABEL <tab> ITEM <tab> LINE[|LINE]...: completing one of the LINEs
# offers ITEM. Made once per test file: it takes many processes.
expectations() {
	local c s o lines
	for o in $(help_commands); do
		printf 'command\t%s\tarcturn \n' "$o"
	done
	for o in $(help_globals); do
		printf 'global option\t%s\tarcturn -\n' "$o"
	done
	for c in $(help_commands); do
		lines="arcturn $c -"
		for s in $(help_subcommands "$c"); do
			printf '%s subcommand\t%s\tarcturn %s \n' "$c" "$s" "$c"
			lines="$lines|arcturn $c $s -"
		done
		for o in $(help_options "$c"); do
			printf '%s option\t%s\t%s\n' "$c" "$o" "$lines"
		done
	done
}

# What shell $1 fails to offer of the help's commands, subcommands and
# options ("LABEL: ITEM"); nothing when all are there.
help_missing() {
	local sh=$1 e=$BATS_FILE_TMPDIR/expect
	[ -s "$e" ] || expectations >"$e" || return
	local -a lines
	mapfile -t lines < <(cut -f3 "$e" | tr '|' '\n' | awk '!seen[$0]++')
	[ "${#lines[@]}" -ge 10 ] || { echo "too few expectations"; return; }
	comp_batch "$sh" "${lines[@]}" || { echo "$sh: completion failed"; return; }
	# the Nth file holds what the Nth line offered
	awk -F '\t' -v dir="$T" '
		FILENAME == ARGV[1] { idx[$0] = FNR; next }
		{
			k = split($3, q, "|"); ok = 0
			for (j = 1; j <= k && !ok; j++) {
				f = dir "/comp." idx[q[j]]
				while ((getline l < f) > 0)
					if (l == $2) ok = 1
				close(f)
			}
			if (!ok) print $1 ": " $2
		}' <(printf '%s\n' "${lines[@]}") "$e"
}

# The values the Nth line of the last comp_batch offered, as values() has
# them.
batch_values() {
	sed 's/^--[a-z-]*=//' "$T/comp.$1" | grep -v '^$' | sort -u
}

# The checks of one shell. The lines of each part are completed by one
# process of the shell (a shell start a line was most of the time).
check_shell() {
	local sh=$1
	run help_missing "$sh"
	assert_output ""

	# option values
	comp_batch "$sh" "arcturn exec --sandbox " "arcturn exec --network " \
	    "arcturn diff --color=" "arcturn -q exec --dry-run --sandbox=w" ||
		fail "$sh: completion failed"
	run batch_values 1
	assert_output "$(src_table mode_names | sort)"
	run batch_values 2
	assert_output "$(help_values exec --network | sort)"
	run batch_values 3
	assert_output "$(help_values diff --color | sort)"
	run batch_values 4
	assert_output workspace-write

	# session ids; paths, and the command after exec's options
	echo x | arcturn write --dry-run notes.txt
	echo y | arcturn --session foo-1 write --dry-run notes.txt
	def=$(arcturn session list | awk 'NR > 1 && $1 != "foo-1" { print $1 }')
	[ -n "$def" ]
	comp_batch "$sh" "arcturn session rm " "arcturn --session " \
	    "arcturn -C . session show fo" "arcturn session list " \
	    "arcturn write --dry-run not" "arcturn -C sr" \
	    "arcturn exec --network off -- arcturn-test-p" \
	    "arcturn exec --dry-run arcturn-test-p" \
	    "arcturn exec -- arcturn-test-prog not" ||
		fail "$sh: completion failed"
	run batch_values 1
	assert_output "$(printf '%s\n' "$def" foo-1 | sort)"
	run batch_values 2
	assert_output "$(printf '%s\n' "$def" foo-1 | sort)"
	run batch_values 3
	assert_output foo-1
	run batch_values 4
	assert_output ""
	run batch_values 5
	assert_output notes.txt
	run batch_values 6
	assert_output --regexp '^src/?$'
	run batch_values 7
	assert_output arcturn-test-prog
	run batch_values 8
	assert_output arcturn-test-prog
	run batch_values 9
	assert_output notes.txt
}

@test "bash: commands, options, values, session ids, paths and exec's command" {
	check_shell bash
}

@test "bash with bash-completion loaded: the same" {
	[ -f /usr/share/bash-completion/bash_completion ] ||
		fail "bash-completion is missing: install it (sh vendor/need.sh completion.bats does)"
	check_shell bash-completion
}

@test "zsh: commands, options, values, session ids, paths and exec's command" {
	need zsh
	check_shell zsh
}

@test "fish: commands, options, values, session ids, paths and exec's command" {
	need fish
	check_shell fish
}

@test "no arcturn on PATH, or a failing one: no session ids, no error, in every shell" {
	need zsh
	need fish
	rm "$T/bin/arcturn"
	for sh in bash bash-completion zsh fish; do
		run --separate-stderr comp "$sh" "arcturn session rm "
		assert_success
		assert_output ""
		[ -z "$stderr" ] || fail "$sh: $stderr"
	done
	printf '#!/bin/sh\necho "ID PENDING WORKSPACE"; echo "junk"; exit 1\n' >"$T/bin/arcturn"
	chmod +x "$T/bin/arcturn"
	for sh in bash bash-completion zsh fish; do
		run --separate-stderr comp "$sh" "arcturn session rm "
		assert_success
		assert_output ""
		[ -z "$stderr" ] || fail "$sh: $stderr"
	done
}

# Every option of the getopt tables and every command of main.c, in each
# completion file, written the way that shell's file names options: an
# option as a word of its own ("-" a part of the word) in arcturn.bash and
# _arcturn, as "-l NAME" or "-s X" in arcturn.fish; a command as a word
# (as grep -w) of each. One awk reads the files (a grep an item and a
# file were ~150 processes).
source_missing() {	# dir
	local items=$BATS_FILE_TMPDIR/source.items
	if [ ! -s "$items" ]; then
		{ src_options | sed 's/^/option\t/'
		  src_commands | sed 's/^/command\t/'; } >"$items.tmp" &&
			mv "$items.tmp" "$items" || return
	fi
	awk -F '\t' '
	# a line of file F (1 arcturn.bash, 2 _arcturn, 3 arcturn.fish) that
	# has X with no letter, digit or "-" either side
	function has(f, x,   i, re) {
		re = "(^|[^a-zA-Z0-9-])" x "([^a-zA-Z0-9-]|$)"
		for (i = 1; i <= n[f]; i++)
			if (l[f, i] ~ re)
				return 1
		return 0
	}
	'"$AWK_WORD"'
	# X as a whole word of a line of file F (as grep -w)
	function in_file(f, x,   i) {
		for (i = 1; i <= n[f]; i++)
			if (word(l[f, i], x))
				return 1
		return 0
	}
	FILENAME != ARGV[4] {
		f = FILENAME == ARGV[1] ? 1 : FILENAME == ARGV[2] ? 2 : 3
		l[f, ++n[f]] = $0
		next
	}
	$1 == "option" {
		o = $2
		fl = o ~ /^--/ ? "-l " substr(o, 3) : "-s " substr(o, 2)
		if (!has(1, o))
			print "arcturn.bash: " o
		if (!has(2, o))
			print "_arcturn: " o
		if (!has(3, fl))
			print "arcturn.fish: " o
	}
	$1 == "command" {
		if (!in_file(1, $2))
			print "arcturn.bash: command " $2
		if (!in_file(2, $2))
			print "_arcturn: command " $2
		if (!in_file(3, $2))
			print "arcturn.fish: command " $2
	}
	' "$1/arcturn.bash" "$1/_arcturn" "$1/arcturn.fish" "$items"
}

@test "every option and command of the sources is in each completion file" {
	[ "$(src_options | wc -l)" -ge 20 ]
	run source_missing "$C"
	assert_output ""
	# and the check can fail
	mkdir "$T/c"
	for f in arcturn.bash _arcturn arcturn.fish; do
		sed 's/require-sandbox/require-sandbx/g; s/-s y /-s z /; s/ -y / -z /g; s/-y,/-z,/g' \
			"$C/$f" >"$T/c/$f"
	done
	run source_missing "$T/c"
	assert_line "arcturn.bash: --require-sandbox"
	assert_line "_arcturn: --require-sandbox"
	assert_line "arcturn.fish: --require-sandbox"
	assert_line "arcturn.fish: -y"
}

@test "the checks above can fail: a completion without --grant is caught" {
	mkdir "$T/c"
	cp "$C"/* "$T/c/"
	sed -i 's/"--sandbox --grant --dry-run/"--sandbox --dry-run/' "$T/c/arcturn.bash"
	run cmp -s "$C/arcturn.bash" "$T/c/arcturn.bash"
	assert_failure
	C=$T/c
	run help_missing bash
	assert_output "exec option: --grant"
}
