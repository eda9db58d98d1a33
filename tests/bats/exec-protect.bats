#!/usr/bin/env bats
# Protected paths against a command that prepares the next run: a user
# config planted in a workspace of $HOME, a protect entry that leads
# through a symlink out of the workspace, a deep protect entry.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() { common_setup; }

# t_config_plant BACKEND
t_config_plant() {
	use_backend "$1"
	cd "$HOME" || return 1
	run arcturn -C "$HOME" exec -- sh -c '
		mkdir -p .config/arcturn; echo "{\"sandbox\":\"off\"}" > .config/arcturn/config.json
		echo rc=$?
		mv .config .config-old; echo rc=$?
		rm -rf .config; echo rc=$?'
	refute_line rc=0
	[ ! -e "$HOME/.config/arcturn/config.json" ]
	[ ! -e "$HOME/.config-old" ]
	# and the next run is still confined
	run arcturn -C "$HOME" exec -- sh -c "echo x > '$OUT/f'"
	assert_failure
	[ ! -e "$OUT/f" ]
}

@test "helper: a workspace of \$HOME cannot plant a user config" { t_config_plant helper; }
@test "bwrap: a workspace of \$HOME cannot plant a user config" { t_config_plant bwrap; }

# t_protect_symlink BACKEND: a protect entry through a link to $OUT must not
# make $OUT writable (bwrap follows links when it binds).
t_protect_symlink() {
	use_backend "$1"
	make_outside
	mkdir -p "$OUT/sub"
	echo x >"$OUT/sub/x"
	ln -s "$OUT" evil
	echo '{"protect": ["evil/sub/x"]}' >.arcturn.json
	local before
	before=$(snap "$OUT")
	run arcturn exec -- sh -c "echo pwn > '$OUT/sub/y'; echo rc=\$?; echo pwn > evil/sub/z; echo rc=\$?"
	refute_line rc=0
	assert_equal "$(snap "$OUT")" "$before"
}

@test "helper: a protect entry through a symlink does not open the target" { t_protect_symlink helper; }
@test "bwrap: a protect entry through a symlink does not open the target" { t_protect_symlink bwrap; }

# t_protect_deep BACKEND: a protect entry 30 directories deep still works
t_protect_deep() {
	use_backend "$1"
	local d=a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/aa/bb/cc/dd
	mkdir -p "$d"
	echo keep >"$d/file"
	echo "{\"protect\": [\"$d/file\"]}" >.arcturn.json
	run arcturn exec -- sh -c "echo x > '$d/file'; echo rc=\$?; echo ok > '$d/other'; echo rc=\$?"
	assert_line --regexp '^rc=[1-9]'
	assert_line rc=0
	assert_equal "$(cat "$d/file")" keep
	assert_equal "$(cat "$d/other")" ok
}

@test "helper: a deep protect entry works" { t_protect_deep helper; }
@test "bwrap: a deep protect entry works" { t_protect_deep bwrap; }
