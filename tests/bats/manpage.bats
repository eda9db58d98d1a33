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
		fail "mandoc is missing: install it (sh vendor/need.sh manpage.bats does)"
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

# What a page must have, one item a line (KIND<TAB>WORD[<TAB>WORD]), read
# from the binary's help and the sources: the same for every page, so made
# once per file (each help and source query is a handful of processes).
page_wanted() {
	local f=$BATS_FILE_TMPDIR/page.wanted c o s v
	if [ ! -s "$f" ]; then
		{
			for c in $( (help_commands; src_commands) | sort -u); do
				printf 'cmd\t%s\n' "$c"
				for o in $(help_options "$c"); do
					# --help: `arcturn command -h | --help`, checked below
					[ "$o" = --help ] && continue
					printf 'opt\t%s\t%s\n' "$c" "$o"
				done
				for s in $(help_subcommands "$c"); do
					printf 'sub\t%s\t%s\n' "$c" "$s"
				done
			done
			for o in $(help_globals); do printf 'global\t%s\n' "$o"; done
			printf 'cmdhelp\n'
			for o in $(help_globals; src_options); do
				printf 'dopt\t%s\n' "$o"
			done
			for v in $(src_table mode_names); do printf 'mode\t%s\n' "$v"; done
			for v in $(help_values exec --network; help_values diff --color); do
				printf 'value\t%s\n' "$v"
			done
			for v in $(src_table keys); do printf 'key\t%s\n' "$v"; done
			for v in $(src_environment); do printf 'env\t%s\n' "$v"; done
			for s in NAME SYNOPSIS DESCRIPTION ENVIRONMENT FILES "EXIT STATUS" \
			    EXAMPLES "SEE ALSO" "SECURITY CONSIDERATIONS"; do
				printf 'section\t%s\n' "$s"
			done
		} >"$f.tmp" && mv "$f.tmp" "$f" || return
	fi
	cat "$f"
}

# What a page ($1) misses, one item a line, each with where it was wanted:
# the items of page_wanted looked up in the rendered page by one awk.
#  - a command: a SYNOPSIS line `arcturn CMD`, a DESCRIPTION tag;
#  - a command's option: a word of its SYNOPSIS lines, a tag in its item
#    of DESCRIPTION (see item below); a subcommand: a SYNOPSIS line
#    `arcturn CMD SUB`, a DESCRIPTION tag `CMD SUB`;
#  - a global option: a word of SYNOPSIS; every option: a DESCRIPTION tag;
#  - a --sandbox mode: a word of the "--sandbox mode" tag's first 4 lines;
#    a value of --network or --color: a word of the page;
#  - a config key: a DESCRIPTION tag; a variable: an ENVIRONMENT tag;
#  - each section.
# A tag: an item's first line starts with it (after other tags: "-y, --yes").
page_missing() {
	local txt=$T/page.txt
	render "$1" >"$txt" || return
	page_wanted >"$T/page.wanted" || return
	awk -F '\t' '
	function tagged(x, n, a,   i) {
		for (i = 1; i <= n; i++)
			if (a[i] ~ ("^ +([^ ]+, )*" x "([],[ =]|$)"))
				return 1
		return 0
	}
	# lines of SYNOPSIS that are `arcturn C ...`
	function syn_cmd(c,   i) {
		for (i = 1; i <= nsyn; i++)
			if (syn[i] ~ ("^ +arcturn " c "( |$)"))
				return 1
		return 0
	}
	# a word (split at " |[]=") of the SYNOPSIS lines of `arcturn C`, or
	# of all of SYNOPSIS when C is ""
	function in_syn(c, o,   i, n, k, w) {
		for (i = 1; i <= nsyn; i++) {
			if (c != "" && syn[i] !~ ("^ +arcturn " c "( |$)"))
				continue
			n = split(syn[i], w, /[][ |=]/)
			for (k = 1; k <= n; k++)
				if (w[k] == o)
					return 1
		}
		return 0
	}
	'"$AWK_WORD"'
	# the item of command C in DESCRIPTION ("exec ...", "session list"):
	# a line that starts with it and is followed by deeper ones, and those
	# (blank lines kept), with the tag line options made tags of their own
	function item(c,   i, j, ind, n, k, w) {
		ni = 0
		for (i = 1; i <= ndesc; i++) {
			if (desc[i] !~ ("^ +" c "( |$)"))
				continue
			match(desc[i], /^ */); ind = RLENGTH
			for (j = i + 1; j <= ndesc && desc[j] == ""; j++)
				;
			match(desc[j], /^ */)
			if (j > ndesc || RLENGTH <= ind)
				continue
			n = split(desc[i], w, /[][ |=]+/)
			for (k = 1; k <= n; k++)
				if (w[k] ~ /^-/)
					it[++ni] = " " w[k]
			for (j = i + 1; j <= ndesc; j++) {
				match(desc[j], /^ */)
				if (desc[j] != "" && RLENGTH <= ind)
					break
				it[++ni] = desc[j]
			}
		}
		itemof = c
	}
	FILENAME == ARGV[1] {
		all[++nall] = $0
		if ($0 ~ /^[A-Z]/) {
			sec = $0
			next
		}
		if (sec == "SYNOPSIS")
			syn[++nsyn] = $0
		else if (sec == "DESCRIPTION")
			desc[++ndesc] = $0
		else if (sec == "ENVIRONMENT")
			env[++nenv] = $0
		next
	}
	$1 == "cmd" {
		if (!syn_cmd($2))
			print "SYNOPSIS: command " $2
		if (!tagged($2, ndesc, desc))
			print "DESCRIPTION: command " $2
	}
	$1 == "opt" {
		if (!in_syn($2, $3))
			print "SYNOPSIS: " $2 " " $3
		if (itemof != $2)
			item($2)
		if (!tagged($3, ni, it))
			print "DESCRIPTION: " $2 " " $3
	}
	$1 == "sub" {
		if (!syn_cmd($2 " " $3))
			print "SYNOPSIS: " $2 " " $3
		if (!tagged($2 " " $3, ndesc, desc))
			print "DESCRIPTION: " $2 " " $3
	}
	$1 == "global" {
		if (!in_syn("", $2))
			print "SYNOPSIS: global " $2
	}
	$1 == "cmdhelp" {
		if (!in_syn("command", "--help"))
			print "SYNOPSIS: arcturn command --help"
	}
	$1 == "dopt" {
		if (!tagged($2, ndesc, desc))
			print "DESCRIPTION: option " $2
	}
	$1 == "mode" {
		ok = 0
		for (i = 1; i <= ndesc && !ok; i++)
			if (desc[i] ~ /^ +--sandbox mode/)
				for (j = i; j <= i + 3 && j <= ndesc && !ok; j++)
					ok = word(desc[j], $2)
		if (!ok)
			print "DESCRIPTION: --sandbox " $2
	}
	$1 == "value" {
		ok = 0
		for (i = 1; i <= nall && !ok; i++)
			ok = word(all[i], $2)
		if (!ok)
			print "value " $2
	}
	$1 == "key" {
		if (!tagged($2, ndesc, desc))
			print "DESCRIPTION (Configuration): key " $2
	}
	$1 == "env" {
		if (!tagged($2, nenv, env))
			print "ENVIRONMENT: " $2
	}
	$1 == "section" {
		ok = 0
		for (i = 1; i <= nall && !ok; i++)
			ok = all[i] == $2
		if (!ok)
			print "section " $2
	}
	' "$txt" "$T/page.wanted"
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

# The options the page gives command $2 (page $1): the words of its
# SYNOPSIS lines `arcturn CMD ...` and the tags of its items in
# DESCRIPTION (`CMD ...`, `CMD SUB ...`), one a line.
page_options() {
	render "$1" | awk -v c="$2" '
	/^[A-Z]/ { sec = $0; item = 0; next }
	sec == "SYNOPSIS" && $0 ~ ("^ +arcturn " c "( |$)") { print; next }
	sec != "DESCRIPTION" || $0 == "" { next }
	{ match($0, /^ */); ind = RLENGTH }
	ind == 5 { item = $0 ~ ("^ +" c "( |$)"); if (item) print; tag = 0; next }
	item && tag == 0 && ind > 5 { tag = ind }
	item && ind == tag && $0 ~ /^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }
	' | options_in
}

@test "man page: every option it gives a command is one of that command's --help" {
	local c o missing=
	for c in $(help_commands); do
		for o in $(page_options "$PAGE" "$c"); do
			help_options "$c" | grep -qxe "$o" ||
				help_globals | grep -qxe "$o" ||
				missing="$missing $c:$o"
		done
	done
	assert_equal "$missing" ""
	# the check sees an option only the page has
	sed 's/^\.It Fl -full$/.It Fl -fullest/' "$PAGE" >"$T/x.1"
	run page_options "$T/x.1" diff
	assert_line -- --fullest
	run page_options "$T/x.1" exec
	assert_line -- --json-fd
	refute_line -- --fullest
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
