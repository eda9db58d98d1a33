# Shared setup for the black-box tests. Every test gets its own workspace,
# temp dir, home and an "outside" folder that no backend lets a confined
# command write. ARCTURN_BIN and ARCTURN_TOOLS come from tests/run.

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

: "${ARCTURN_BIN:?run the suite through tests/run}"

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
