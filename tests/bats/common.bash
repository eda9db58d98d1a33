# Shared setup for the black-box tests. Every test gets its own workspace,
# temp dir, home and an "outside" folder that no backend lets a confined
# command write. ARCTURN_BIN and ARCTURN_TOOLS come from tests/run.

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

: "${ARCTURN_BIN:?run the suite through tests/run}"

# python3, where it is a pyenv shim (a bash script running pyenv, which
# then starts the interpreter: 0.3 s a start here, 2-4 s under load,
# against 0.03 s; the tests start python3 hundreds of times, most inside
# arcturn exec): the folder of the interpreter the shim starts goes first
# on PATH, as `pyenv exec` itself does. The interpreter is asked once per
# run.
case $(command -v python3 2>/dev/null) in
*/.pyenv/shims/python3)
	if [ -n "${BATS_RUN_TMPDIR:-}" ]; then
		[ -s "$BATS_RUN_TMPDIR/python3.path" ] ||
			{ python3 -c 'import sys; print(sys.executable)' \
			    >"$BATS_RUN_TMPDIR/python3.path.$$" &&
			    mv "$BATS_RUN_TMPDIR/python3.path.$$" "$BATS_RUN_TMPDIR/python3.path"; }
		read -r _py3 2>/dev/null <"$BATS_RUN_TMPDIR/python3.path" &&
			[ -x "$_py3" ] && [ "${_py3##*/}" = python3 ] &&
			PATH=${_py3%/*}:$PATH
		unset _py3
	fi ;;
esac

common_setup() {
	T=$(cd "$BATS_TEST_TMPDIR" && pwd -P)
	WS=$T/ws
	OUT=$T/outside
	mkdir -p "$WS" "$OUT" "$T/tmp" "$T/home"
	export HOME=$T/home TMPDIR=$T/tmp
	unset ARCTURN_HOME ARCTURN_SESSION ARCTURN_DRY_RUN ARCTURN_BACKEND XDG_CONFIG_HOME
	cd "$WS" || return 1
}

arcturn() {
	"$ARCTURN_BIN" "$@"
}

is_root() {
	[ "$(id -u)" = 0 ]
}
