# What the man page and the shell completions must cover, read from the
# binary's help and from the option tables in the source, so that an
# option added there and missing from them fails a test. Loaded by
# manpage.bats and completion.bats.
#
# ARCTURN_RELEASE_DIR (the man page and completions) and ARCTURN_SRC_DIR
# (cli/main.c, cli/cmd_*.c, policy/config*.c) default to the checkout's release/ and src/;
# tests/run passes copies for its run as an unprivileged user.

RELEASE_DIR=${ARCTURN_RELEASE_DIR:-$BATS_TEST_DIRNAME/../../release}
SRC_DIR=${ARCTURN_SRC_DIR:-$BATS_TEST_DIRNAME/../../src}

docs_setup() {
	[ -f "$RELEASE_DIR/arcturn.1" ] && [ -d "$RELEASE_DIR/completions" ] ||
		fail "no man page or completions in $RELEASE_DIR (set ARCTURN_RELEASE_DIR)"
	[ -f "$SRC_DIR/cli/main.c" ] || fail "no $SRC_DIR/cli/main.c (set ARCTURN_SRC_DIR)"
}

# `arcturn [CMD] --help`, run once per test file.
help_of() {
	local f=$BATS_FILE_TMPDIR/help.${1:-all}
	[ -s "$f" ] || "$ARCTURN_BIN" $1 --help >"$f" || return
	cat "$f"
}

# The commands, from the usage lines of `arcturn --help`.
help_commands() {
	help_of |
		sed -n 's/^ *\(usage: \)\{0,1\}arcturn \([a-z][a-z-]*\).*/\2/p'
}

# The commands of main.c's table: { "exec", cmd_exec, ...
src_commands() {
	sed -n 's/^[[:space:]]*{ "\([a-z][a-z-]*\)", cmd_[a-z_]*,.*/\1/p' "$SRC_DIR/cli/main.c"
}

# Options written in a text on stdin: -x and --long-name tokens.
options_in() {
	grep -oE -- '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[^-]*//' | sort -u
}

# The global options: the first and the last line of `arcturn --help`.
help_globals() {
	help_of | sed -n '1p;$p' | sed 's/COMMAND --help//' | options_in
}

# The options of one command, from `arcturn CMD --help`, with --help.
help_options() {
	{ help_of "$1"; echo --help; } | options_in
}

# The subcommands of one command: lower-case words of its usage line once
# the options and their values are taken out (`session list|show|rm`).
help_subcommands() {
	help_of "$1" | sed -n '1,/^$/p' |
		sed -E 's/--?[a-z][a-z-]*([= ][a-z]+(\|[a-z]+)+)?//g' |
		tr ' |[]' '\n\n\n\n' | grep -xE '[a-z]+' |
		grep -vx -e usage -e arcturn -e "$1" | sort -u
}

# The values an option lists in help: `--network on|off`,
# `--color=auto|always|never`; one a line.
help_values() {	# command option
	help_of "$1" |
		grep -oE -- "$2[= ][a-z-]+(\\|[a-z-]+)+" | head -1 |
		sed -E 's/^[^ =]*[ =]//' | tr '|' '\n'
}

# Every long option of a struct option table in the command-line sources,
# and every short one of a getopt_long option string, one a line; read
# once per test file.
src_options() {
	local f=$BATS_FILE_TMPDIR/src.options
	if [ ! -s "$f" ]; then
		{
			sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9-]*\)", [a-z_]*_argument,.*/--\1/p' \
			    "$SRC_DIR"/cli/main.c "$SRC_DIR"/cli/cmd_*.c
			grep -ohE '(getopt_long|cli_getopt)\([^"]*"[^"]*"' \
			    "$SRC_DIR"/cli/main.c "$SRC_DIR"/cli/cmd_*.c |
				sed 's/.*"\(.*\)"/\1/' |
				tr -d '+:-' | grep -o . | sed 's/^/-/'
		} | sort -u >"$f.tmp" && mv "$f.tmp" "$f" || return
	fi
	cat "$f"
}

# The strings of a `static const char *const NAME[...] = { ... };` table
# in config.c (keys, mode_names).
src_table() {
	awk -v name="$1" '
		$0 ~ "[*]const " name "\\[" { on = 1 }
		on { s = s $0 }
		on && /};/ { on = 0 }
		END { while (match(s, /"[^"]*"/)) { print substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } }
	' "$SRC_DIR"/policy/config*.c
}

# Environment variables the sources read by name: getenv("NAME").
src_environment() {
	cat "$SRC_DIR"/*/*.c | grep -o 'getenv("[A-Z_][A-Z0-9_]*")' |
		sed 's/getenv("\(.*\)")/\1/' | sort -u
}

# Lines of $1 missing from $2 (both one item a line).
missing() {
	printf '%s\n' "$1" | grep -v '^$' | sort -u |
		comm -23 - <(printf '%s\n' "$2" | grep -v '^$' | sort -u)
}

# An awk function for the awk programs of manpage.bats and completion.bats:
# word(s, v) is 1 when V is a whole word of S (as grep -w: no letter,
# digit or underscore either side).
AWK_WORD='
	function word(s, v,   p, q, b, a) {
		q = 0
		while ((p = index(substr(s, q + 1), v)) > 0) {
			p += q
			b = p == 1 ? "" : substr(s, p - 1, 1)
			a = substr(s, p + length(v), 1)
			if (b !~ /[A-Za-z0-9_]/ && a !~ /[A-Za-z0-9_]/)
				return 1
			q = p
		}
		return 0
	}'
