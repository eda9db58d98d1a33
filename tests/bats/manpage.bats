#!/usr/bin/env bats
# release/arcturn.1: clean under mandoc -Tlint, and covering every command,
# subcommand, option, environment variable and config key that the binary's
# help and the sources name, so that the page cannot silently go stale.
# The checks read the page as mandoc renders it (one line per synopsis).

load common
load docs

setup() {
	common_setup
	docs_setup
	command -v mandoc >/dev/null ||
		fail "mandoc is missing: install it (vendor/bootstrap.sh does)"
	PAGE=$RELEASE_DIR/arcturn.1
}

# The page rendered as plain text, wide enough that no line wraps.
render() {
	mandoc -Tascii -O width=400 "$1" | col -bx
}

# Lines of a section of the rendered page ($2: its title).
section() {
	awk -v s="$2" '/^[A-Z]/ { on = ($0 == s) ; next } on' "$1"
}

# What a page ($1) misses, one item a line, each with where it was wanted.
page_missing() {
	local txt=$T/page.txt syn desc c o s v
	render "$1" >"$txt"
	syn=$(section "$txt" SYNOPSIS)
	desc=$(section "$txt" DESCRIPTION)
	# a tag: an item's first line starts with it (after other tags: "-y, --yes")
	tagged() { printf '%s\n' "$2" | grep -qE -- "^ +([^ ]+, )*$1([],[ =]|\$)"; }
	# the items of command $1 in DESCRIPTION ("exec ...", "session list"):
	# a line that starts with it and is followed by deeper ones, and those
	# (blank lines kept), with the tag line's options made tags of their own
	item() {
		printf '%s\n' "$desc" | awk -v c="$1" '
			{ l[NR] = $0 }
			END {
				for (i = 1; i <= NR; i++) {
					if (l[i] !~ "^ +" c "( |$)")
						continue
					match(l[i], /^ */); ind = RLENGTH
					for (j = i + 1; j <= NR && l[j] == ""; j++)
						;
					match(l[j], /^ */)
					if (j > NR || RLENGTH <= ind)
						continue
					n = split(l[i], w, /[][ |=]+/)
					for (k = 1; k <= n; k++)
						if (w[k] ~ /^-/)
							print " " w[k]
					for (j = i + 1; j <= NR; j++) {
						match(l[j], /^ */)
						if (l[j] != "" && RLENGTH <= ind)
							break
						print l[j]
					}
				}
			}'
	}
	# a word of the synopsis lines of `arcturn $1 ...`
	in_syn() {
		printf '%s\n' "$syn" | grep -E "^ +arcturn $1( |\$)" |
			tr ' |[]=' '\n\n\n\n\n' | grep -qxF -- "$2"
	}
	for c in $( (help_commands; src_commands) | sort -u); do
		printf '%s\n' "$syn" | grep -qE "^ +arcturn $c( |\$)" ||
			echo "SYNOPSIS: command $c"
		tagged "$c" "$desc" || echo "DESCRIPTION: command $c"
		for o in $(help_options "$c"); do
			# --help: `arcturn command -h | --help`, checked below
			[ "$o" = --help ] && continue
			in_syn "$c" "$o" || echo "SYNOPSIS: $c $o"
			tagged "$o" "$(item "$c")" || echo "DESCRIPTION: $c $o"
		done
		for s in $(help_subcommands "$c"); do
			printf '%s\n' "$syn" | grep -qE "^ +arcturn $c $s( |\$)" ||
				echo "SYNOPSIS: $c $s"
			tagged "$c $s" "$desc" || echo "DESCRIPTION: $c $s"
		done
	done
	for o in $(help_globals); do
		printf '%s\n' "$syn" | tr ' |[]=' '\n\n\n\n\n' | grep -qxF -- "$o" ||
			echo "SYNOPSIS: global $o"
	done
	in_syn command --help || echo "SYNOPSIS: arcturn command --help"
	for o in $(help_globals; src_options); do
		tagged "$o" "$desc" || echo "DESCRIPTION: option $o"
	done
	for v in $(src_table mode_names); do
		printf '%s\n' "$desc" | grep -qE -- "^ +--sandbox mode" &&
			printf '%s\n' "$desc" | grep -A3 -E -- "^ +--sandbox mode" | grep -qw -- "$v" ||
			echo "DESCRIPTION: --sandbox $v"
	done
	for v in $(help_values exec --network; help_values diff --color); do
		grep -qw -- "$v" "$txt" || echo "value $v"
	done
	for v in $(src_table keys); do
		tagged "$v" "$desc" || echo "DESCRIPTION (Configuration): key $v"
	done
	for v in $(src_environment); do
		tagged "$v" "$(section "$txt" ENVIRONMENT)" || echo "ENVIRONMENT: $v"
	done
	for s in NAME SYNOPSIS DESCRIPTION ENVIRONMENT FILES "EXIT STATUS" \
	    EXAMPLES "SEE ALSO" "SECURITY CONSIDERATIONS"; do
		grep -qx "$s" "$txt" || echo "section $s"
	done
}

@test "man page: mandoc -Tlint finds nothing wrong" {
	# mandoc also looks each .Xr up in this machine's manual database:
	# what is installed here is not the page's fault.
	run mandoc -Tlint "$PAGE"
	assert_success
	run grep -v -e 'outdated mandoc.db lacks' -e 'referenced manual not found' <<<"$output"
	assert_output ""
	run mandoc -Tlint -W warning "$PAGE"
	assert_success
	assert_output ""
}

@test "man page: every command, subcommand, option, variable and config key of help and source" {
	# the sources know these, or the check below checks nothing
	[ "$(src_commands | wc -l)" -ge 9 ]
	[ "$(src_options | wc -l)" -ge 20 ]
	[ "$(src_table keys | wc -l)" -ge 6 ]
	[ "$(src_environment | wc -l)" -ge 5 ]
	run page_missing "$PAGE"
	assert_output ""
}

@test "man page: the check fails on a page that misses an option, a command or a variable" {
	grep -v -e '-grant' "$PAGE" >"$T/a.1"
	run page_missing "$T/a.1"
	assert_line "SYNOPSIS: exec --grant"
	assert_line "DESCRIPTION: exec --grant"
	sed '/^\.It Cm discard/,/^\.El/d' "$PAGE" >"$T/b.1"
	run page_missing "$T/b.1"
	assert_line "DESCRIPTION: command discard"
	assert_line "DESCRIPTION: discard --yes"
	sed '/^\.It Ev NO_COLOR/,+2d' "$PAGE" >"$T/c.1"
	run page_missing "$T/c.1"
	assert_output "ENVIRONMENT: NO_COLOR"
}

@test "man page: the synopsis is the help's, command by command" {
	render "$PAGE" >"$T/page.txt"
	section "$T/page.txt" SYNOPSIS | sed -n 's/^ *arcturn \([a-z][a-z-]*\).*/\1/p' |
		grep -vx command | uniq >"$T/syn"
	help_commands >"$T/help"
	run diff "$T/help" "$T/syn"
	assert_success
}

@test "man page: the EXIT STATUS section has exec's 125, 126, 127 and 128+n" {
	render "$PAGE" >"$T/page.txt"
	section "$T/page.txt" "EXIT STATUS" >"$T/exit"
	for s in 125 126 127 128+n 0 1 2; do
		grep -q "^ *$s " "$T/exit" || fail "no exit status $s"
	done
}
