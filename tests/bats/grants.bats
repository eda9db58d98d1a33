#!/usr/bin/env bats
# Grants that fit habits: ~, $HOME and ${HOME} expand in --grant and in
# config grants (where no shell expanded them); a grant that does not exist
# yet beneath home is created (0700, with a note) just before a confined
# command runs, and only then; a missing one elsewhere, ~user and other
# variables stay errors; `sandbox status` says where toolchain caches go.
# HOME is the test's own scratch folder (common_setup), never the real one.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() {
	common_setup
	UC=$HOME/.config/arcturn/config.json
}

# The default backend must confine, or there is nothing to test.
need_sandbox() {
	[ "$HAVE_LANDLOCK" = 1 ] || [ "$HAVE_BWRAP" = 1 ] ||
		skip "no Landlock and no bwrap: exec cannot confine here"
}

mode_of() { stat -c %a "$1"; }

@test "--grant '~/.npm' on a home without it: created 0700 with a note, writable inside, not beside" {
	need_sandbox
	# control: without arcturn the write beside the grant works
	run -0 sh -c 'echo x > "$HOME/beside" && cat "$HOME/beside"'
	assert_output x
	rm "$HOME/beside"

	[ ! -e "$HOME/.npm" ]
	run -0 --separate-stderr arcturn exec --grant '~/.npm' -- \
	    sh -c 'echo in > "$HOME/.npm/f" && cat "$HOME/.npm/f"'
	assert_output in
	assert_equal "$stderr" "arcturn: exec: created ~/.npm for a grant (it did not exist)"
	assert_equal "$(mode_of "$HOME/.npm")" 700
	assert_equal "$(cat "$HOME/.npm/f")" in

	run --separate-stderr arcturn exec --grant '~/.npm' -- \
	    sh -c 'echo x > "$HOME/beside"'
	assert_failure
	[[ $stderr =~ $DENIED ]]
	[[ $stderr != *created* ]]	# it exists now: no note
	[ ! -e "$HOME/beside" ]
}

@test "--grant=~/a/b/c creates each missing folder 0700; -q says nothing" {
	need_sandbox
	mkdir -p "$HOME/a"
	chmod 755 "$HOME/a"
	run -0 --separate-stderr arcturn -q exec --grant=~/a/b/c -- \
	    sh -c 'echo ok > "$HOME/a/b/c/f"'
	assert_equal "$stderr" ""
	assert_equal "$(mode_of "$HOME/a")" 755	# existing: left as it was
	assert_equal "$(mode_of "$HOME/a/b")" 700
	assert_equal "$(mode_of "$HOME/a/b/c")" 700
	assert_equal "$(cat "$HOME/a/b/c/f")" ok
}

@test "\$HOME and \${HOME} in a config grant expand; under --json the note stays on stderr" {
	need_sandbox
	mkdir -p "$(dirname "$UC")"
	printf '{"grants": ["$HOME/.cache/pip", "${HOME}/.cargo"]}' >"$UC"
	run -0 --separate-stderr arcturn --json exec -- \
	    sh -c 'echo p > "$HOME/.cache/pip/f" && echo c > "$HOME/.cargo/f"'
	assert_line --index 0 --partial '"schema":"arcturn/exec/v1","status":0'
	assert_equal "${#lines[@]}" 1
	[[ $stderr == *"created ~/.cache/pip for a grant"* ]]
	[[ $stderr == *"created ~/.cargo for a grant"* ]]
	assert_equal "$(cat "$HOME/.cache/pip/f")" p
	assert_equal "$(cat "$HOME/.cargo/f")" c
	assert_equal "$(mode_of "$HOME/.cache")" 700
}

@test "~other, another variable and a relative grant are refused before anything runs" {
	run --separate-stderr arcturn exec --grant '~root/.npm' -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" "arcturn: grant: ~root/.npm: only your own home expands (~ or ~/...); write the path out"
	run --separate-stderr arcturn exec --grant '$USER/x' -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" 'arcturn: grant: $USER/x: only $HOME or ${HOME} expands here; write the path out'
	mkdir -p "$(dirname "$UC")"
	printf '{"grants": ["~other"]}' >"$UC"
	run --separate-stderr arcturn exec -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" "arcturn: $UC:1:13: grant: ~other: only your own home expands (~ or ~/...); write the path out"
	rm "$UC"
	run --separate-stderr arcturn exec --grant rel/x -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" "arcturn: grant: rel/x: not an absolute path"
	[ ! -e "$WS/ran" ]
	[ ! -e "$WS/rel" ]
}

@test "a missing grant outside home stays an error that says what to do; nothing is created" {
	run --separate-stderr arcturn exec --grant "$OUT/new" -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" "arcturn: grant: $OUT/new: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)"
	[ ! -e "$OUT/new" ]
	# nor through a symlink in home that leads out of it
	ln -s "$OUT" "$HOME/.cache"
	run --separate-stderr arcturn exec --grant '~/.cache/pip' -- touch "$WS/ran"
	assert_failure 125
	assert_equal "$stderr" "arcturn: grant: ~/.cache/pip: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)"
	[ ! -e "$OUT/pip" ]
	[ ! -e "$WS/ran" ]
}

@test "nothing is created when the command does not run: sandbox status, a refused exec, --sandbox off" {
	mkdir -p "$(dirname "$UC")"
	printf '{"grants": ["~/.gradle"]}' >"$UC"
	run -0 arcturn sandbox status
	assert_line "  yes  gradle: ~/.gradle (new grant)"
	run -0 arcturn --json sandbox status
	[ ! -e "$HOME/.gradle" ]
	run arcturn exec --cwd /nonexistent -- true
	assert_failure 125
	run arcturn exec --grant '~/.m2' --network sideways -- true
	assert_failure 125
	run -0 arcturn exec --sandbox off -- true
	[ ! -e "$HOME/.gradle" ]
	[ ! -e "$HOME/.m2" ]
}

@test "exec --dry-run creates the grant (the command runs with it beside the overlay)" {
	use_backend helper
	run -0 --separate-stderr arcturn exec --dry-run --grant '~/.d' -- \
	    sh -c 'echo d > "$HOME/.d/f"'
	assert_equal "$stderr" "arcturn: exec: created ~/.d for a grant (it did not exist)"
	assert_equal "$(cat "$HOME/.d/f")" d
	assert_equal "$(mode_of "$HOME/.d")" 700
}

@test "sandbox status says where the caches go and whether the command may write there" {
	run -0 arcturn sandbox status
	assert_line "caches (writable under this policy?):"
	assert_line "  NO   npm: ~/.npm (--grant ~/.npm)"
	assert_line "  NO   pip: ~/.cache/pip (--grant ~/.cache/pip)"
	assert_line "  NO   cargo: ~/.cargo (--grant ~/.cargo)"
	assert_line "  NO   go build: ~/.cache/go-build (--grant ~/.cache/go-build)"
	assert_line "  NO   go modules: ~/go (--grant ~/go)"
	assert_line "  NO   gradle: ~/.gradle (--grant ~/.gradle)"
	assert_line "  NO   maven: ~/.m2 (--grant ~/.m2)"

	mkdir -p "$HOME/.npm" "$(dirname "$UC")"
	printf '{"grants": ["~/.npm"]}' >"$UC"
	GOCACHE=$WS/.gocache PIP_CACHE_DIR=$T/tmp/pip run -0 arcturn sandbox status
	assert_line "  yes  npm: ~/.npm (grant)"
	assert_line "  yes  go build: $WS/.gocache (GOCACHE; workspace)"
	assert_line "  yes  pip: $T/tmp/pip (PIP_CACHE_DIR; temp dir)"

	GOCACHE=$WS/.gocache run -0 arcturn --json sandbox status
	run -0 jq -c '.caches[] | select(.tool == "go build" or .tool == "npm" or .tool == "maven")' <<<"$output"
	assert_line --index 0 "{\"tool\":\"npm\",\"path\":\"$HOME/.npm\",\"variable\":null,\"writable\":true,\"via\":\"grant\"}"
	assert_line --index 1 "{\"tool\":\"go build\",\"path\":\"$WS/.gocache\",\"variable\":\"GOCACHE\",\"writable\":true,\"via\":\"workspace\"}"
	assert_line --index 2 "{\"tool\":\"maven\",\"path\":\"$HOME/.m2\",\"variable\":null,\"writable\":false,\"via\":null}"

}
