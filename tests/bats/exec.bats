#!/usr/bin/env bats
# arcturn exec and arcturn sandbox status, whatever the backend: version
# and help, the status report, bad input, a sandbox that is required but
# unavailable (simulated with tests/tools/nosys and a PATH without bwrap),
# the fallbacks (no Landlock -> bwrap, no user namespaces -> Landlock
# only, no memfd -> the verified cache file), and config that must not
# loosen the policy. The escapes per backend are in exec-<backend>.bats.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() {
	common_setup
	NOSYS=$ARCTURN_TOOLS/nosys
	mkdir -p "$T/nobin"	# a PATH with no bwrap (and nothing else)
}

# ---- version, help, status

@test "--version prints the version and the Landlock ABI it knows" {
	run -0 arcturn --version
	assert_line --index 0 --regexp '^arcturn [0-9]+\.[0-9]+\.[0-9]+'
	assert_line --regexp '^landlock: knows ABI 1 to [0-9]+$'
}

@test "--help and exec --help describe exec" {
	run -0 arcturn --help
	assert_output --partial "arcturn exec"
	assert_output --partial "sandbox status"
	run -0 arcturn exec --help
	assert_output --partial "--grant PATH"
	assert_output --partial "--require-sandbox"
	assert_output --partial "--network"
	assert_output --partial "125"
	run -0 arcturn sandbox --help
	assert_output --partial "sandbox status"
}

@test "sandbox status names the backend, the facts and the guarantees" {
	run -0 arcturn sandbox status
	assert_line --regexp '^backend: (helper\+mount|helper|bwrap|none)$'
	assert_line --regexp '^  why: .+'
	assert_line --regexp '^landlock_abi: .+'
	assert_line --regexp '^user_namespaces: .+'
	assert_line --regexp '^bwrap: .+'
	assert_line 'guarantees:'
	assert_line --regexp '^  (yes|NO) +writes outside the roots: .+'
	assert_line --regexp '^  (yes|NO) +TIOCSTI terminal injection: .+'
}

@test "sandbox status --json is valid JSON with every key" {
	run -0 arcturn sandbox status --json
	printf '%s\n' "$output" >"$T/status.json"
	python3 -m json.tool "$T/status.json" >/dev/null
	run -0 python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "arcturn/sandbox-status/v1"
for k in ("backend", "why", "kernel", "user_namespaces", "unix_sockets",
          "helper_start"):
    assert isinstance(j[k], str) and j[k], k
# numbers and words where the text has prose; null where absent here
assert j["landlock_abi"] is None or isinstance(j["landlock_abi"], int)
assert isinstance(j["landlock_abi_known"], int) and j["landlock_abi_known"] >= 1
assert j["user_namespaces"] in ("usable", "unusable")
assert j["bwrap"] is None or isinstance(j["bwrap"], str) and j["bwrap"]
assert j["proc"] is None or isinstance(j["proc"], str) and j["proc"]
g = j["guarantees"]
for k in ("writes_outside", "metadata_outside", "protected_paths",
          "truncation", "signals", "tiocsti"):
    assert isinstance(g[k]["holds"], bool), k
    assert isinstance(g[k]["why"], str) and g[k]["why"], k
print("ok")' "$T/status.json"
	assert_output ok
	# the global --json flag does the same, one line
	run -0 arcturn --json sandbox status
	assert_equal "${#lines[@]}" 1
	printf '%s\n' "$output" | python3 -m json.tool >/dev/null
}

@test "sandbox status matches what this machine has" {
	run -0 status_json_get 'j["backend"], j["landlock_abi"], j["user_namespaces"], (j["bwrap"] or "null").split()[0]'
	local backend abi userns bw
	read -r backend abi userns bw <<<"$output"
	if [ "$HAVE_LANDLOCK" = 1 ]; then
		[[ $abi =~ ^[0-9]+$ ]]
		if [ "$HAVE_USERNS" = 1 ]; then
			assert_equal "$backend" helper+mount
			assert_equal "$userns" usable
		else
			assert_equal "$backend" helper
		fi
	else
		assert_equal "$abi" None
	fi
	if command -v bwrap >/dev/null; then
		assert_equal "$bw" "$(command -v bwrap)"
	fi
}

@test "sandbox status with a bad argument is a usage error" {
	run -2 arcturn sandbox status --bogus
	run -2 arcturn sandbox
}

@test "the default backend confines and lets the workspace be written" {
	make_outside
	local before
	before=$(snap "$OUT")
	try_all "echo x > '$OUT/f'" "touch '$OUT/new'" "rm '$OUT/f'"
	must_work "echo ok > '$WS/inside' && echo t > \"\$TMPDIR/t\""
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$WS/inside")" ok
}

# ---- a required sandbox that is unavailable

# none_here CMD...: run CMD where no backend can run: no Landlock, no user
# namespaces, no bwrap on PATH.
none_here() {
	PATH=$T/nobin "$NOSYS" -l -u -- "$@"
}

@test "no Landlock, no user namespaces, no bwrap: status says none" {
	run -0 none_here "$ARCTURN_BIN" sandbox status --json
	run -0 python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["backend"], j["guarantees"]["writes_outside"]["holds"], j["bwrap"])' "$output"
	assert_output "none False None"
}

@test "--require-sandbox with no sandbox available: 125, the command never runs" {
	run --separate-stderr -125 none_here "$ARCTURN_BIN" exec --require-sandbox -- /bin/sh -c "echo ran > '$WS/marker'"
	[ ! -e "$WS/marker" ]
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "arcturn: "*"required"* ]]
}

@test "requireSandbox in the user config with no sandbox available: 125" {
	mkdir -p "$HOME/.config/arcturn"
	echo '{ "requireSandbox": true }' >"$HOME/.config/arcturn/config.json"
	run --separate-stderr -125 none_here "$ARCTURN_BIN" exec -- /bin/sh -c "echo ran > '$WS/marker'"
	[ ! -e "$WS/marker" ]
	[[ $stderr == *"required"* ]]
	# XDG_CONFIG_HOME moves it
	mkdir -p "$T/xdg/arcturn"
	mv "$HOME/.config/arcturn/config.json" "$T/xdg/arcturn/"
	XDG_CONFIG_HOME=$T/xdg run -125 none_here "$ARCTURN_BIN" exec -- /bin/sh -c "echo ran > '$WS/marker'"
	[ ! -e "$WS/marker" ]
}

@test "no sandbox available, not required: a note on stderr, and the command runs" {
	run --separate-stderr -0 none_here "$ARCTURN_BIN" exec -- /bin/sh -c "echo ran > '$WS/marker'; exit 0"
	assert_equal "$(cat "$WS/marker")" ran
	[[ ${stderr_lines[0]} == "note: sandbox requested but unavailable on this platform" ]]
	# the next line names the real cause
	[[ ${stderr_lines[1]} == *Landlock* ]]
	# and the command's own status still comes through
	run -7 none_here "$ARCTURN_BIN" exec -- /bin/sh -c 'exit 7'
}

@test "ARCTURN_BACKEND=none with --require-sandbox: 125" {
	ARCTURN_BACKEND=none run -125 "$ARCTURN_BIN" exec --require-sandbox -- sh -c "echo ran > '$WS/marker'"
	[ ! -e "$WS/marker" ]
}

@test "an unknown ARCTURN_BACKEND is refused: 125" {
	ARCTURN_BACKEND=bogus run --separate-stderr -125 "$ARCTURN_BIN" exec -- sh -c "echo ran > '$WS/marker'"
	[ ! -e "$WS/marker" ]
	[[ $stderr == *bogus* ]]
}

# ---- fallbacks

@test "no Landlock: bwrap is picked, and it confines" {
	[ "$HAVE_BWRAP" = 1 ] || skip "bwrap missing or unusable here"
	run -0 "$NOSYS" -l -- "$ARCTURN_BIN" sandbox status --json
	run -0 python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["backend"]); print(j["why"])' "$output"
	assert_line --index 0 bwrap
	assert_line --index 1 --partial "no Landlock"
	make_outside
	local before
	before=$(snap "$OUT")
	run -0 "$NOSYS" -l -- "$ARCTURN_BIN" exec -- sh -c "
		echo x > '$OUT/f'; echo rc=\$?; chmod 600 '$OUT/f'; echo rc=\$?
		echo in > '$WS/in'"
	refute_line rc=0
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$WS/in")" in
}

@test "no Landlock and a required sandbox: bwrap runs it" {
	[ "$HAVE_BWRAP" = 1 ] || skip "bwrap missing or unusable here"
	run -0 "$NOSYS" -l -- "$ARCTURN_BIN" exec --require-sandbox -- sh -c "echo in > '$WS/in'"
	assert_equal "$(cat "$WS/in")" in
}

@test "no user namespaces: the helper runs without its mount layer, and confines" {
	[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
	run -0 "$NOSYS" -u -- "$ARCTURN_BIN" sandbox status --json
	run -0 python3 -c 'import json, sys; j = json.loads(sys.argv[1]); print(j["backend"], j["guarantees"]["writes_outside"]["holds"], j["guarantees"]["metadata_outside"]["holds"]); print(j["why"])' "$output"
	assert_line --index 0 "helper True False"
	assert_line --index 1 --partial "mount layer"
	make_outside
	local before
	before=$(snap "$OUT")
	run -0 "$NOSYS" -u -- "$ARCTURN_BIN" exec -- sh -c "
		echo x > '$OUT/f'; echo rc=\$?; touch '$OUT/new'; echo rc=\$?
		truncate -s0 '$OUT/f'; echo rc=\$?; rm '$OUT/f'; echo rc=\$?
		echo in > '$WS/in'"
	echo "$output"
	refute_line rc=0
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$WS/in")" in
}

# the cache file of the helper, as $ARCTURN_HOME/cache/landlock-helper-<sha>
cache_file() {
	local f
	for f in "$HOME"/.arcturn/cache/landlock-helper-*; do
		case ${f##*/} in *.*) continue ;; esac	# temp files
		[ -e "$f" ] || [ -L "$f" ] || continue
		echo "$f"
		return 0
	done
	return 1
}

# the cache file holds the helper: its SHA-256 starts with the name's hex
cache_verifies() {
	local f sum
	f=$(cache_file) && [ ! -L "$f" ] || return 1
	sum=$(sha256sum "$f" | cut -d' ' -f1)
	[[ $sum == "${f##*landlock-helper-}"* ]]
}

@test "no memfd: the helper starts from the cache file, and confines" {
	[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" sandbox status --json
	run -0 python3 -c 'import json, sys; print(json.loads(sys.argv[1])["helper_start"])' "$output"
	assert_output --partial "cache file"
	make_outside
	local before
	before=$(snap "$OUT")
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- sh -c "
		echo x > '$OUT/f'; echo rc=\$?; echo in > '$WS/in'"
	refute_line rc=0
	assert_equal "$(cat "$WS/in")" in
	assert_equal "$(snap "$OUT")" "$before"
	cache_file
	cache_verifies
	run -3 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- sh -c 'exit 3'
}

# What a tampered cache would run: leaves a marker, then runs the command
# unconfined.
evil_helper() {
	cat <<EOF
#!/bin/sh
echo tampered-helper-ran > '$OUT/marker'
while [ \$# -gt 0 ] && [ "\$1" != -- ]; do shift; done
shift
exec "\$@"
EOF
}

@test "no memfd: a tampered cache file is never executed" {
	[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- true
	local f
	f=$(cache_file)
	chmod u+w "$f"
	evil_helper >"$f"
	chmod 755 "$f"
	make_outside
	local before
	before=$(snap "$OUT")
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- sh -c "
		echo x > '$OUT/f'; echo rc=\$?; echo in > '$WS/in'"
	echo "$output"
	[ ! -e "$OUT/marker" ]
	refute_line rc=0
	assert_equal "$(cat "$WS/in")" in
	assert_equal "$(snap "$OUT")" "$before"
	cache_verifies	# replaced by the real helper
}

@test "no memfd: a cache file replaced by a symlink is never followed" {
	[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- true
	local f
	f=$(cache_file)
	evil_helper >"$T/evil"
	chmod 755 "$T/evil"
	rm -f "$f"
	ln -s "$T/evil" "$f"
	make_outside
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- sh -c "
		echo x > '$OUT/f'; echo rc=\$?; echo in > '$WS/in'"
	[ ! -e "$OUT/marker" ]
	refute_line rc=0
	assert_equal "$(cat "$OUT/f")" original
	assert_equal "$(cat "$WS/in")" in
	cache_verifies
}

@test "no memfd and an unwritable cache: 125, not an unverified helper" {
	[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
	is_root && skip "root writes through directory modes"
	mkdir -p "$HOME/.arcturn/cache"
	evil_helper >"$T/evil"
	chmod 755 "$T/evil"
	# a wrong file under the expected name, in a cache nobody can write
	run -0 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- true
	local f
	f=$(cache_file)
	rm -f "$f"
	cp "$T/evil" "$f"
	chmod 555 "$HOME/.arcturn/cache"
	run -125 "$NOSYS" -m -- "$ARCTURN_BIN" exec -- sh -c "echo in > '$WS/in'"
	chmod 755 "$HOME/.arcturn/cache"
	[ ! -e "$OUT/marker" ]
	[ ! -e "$WS/in" ]
}

# ---- bad input: one clear line on stderr, 125, the command never runs

bad_input() {	# ARCTURN-ARGS...: must fail with 125 before running anything
	run --separate-stderr "$ARCTURN_BIN" "$@"
	echo "status $status; stderr: $stderr"
	assert_equal "$status" 125
	[ ! -e "$WS/marker" ]
	assert_equal "${#stderr_lines[@]}" 1
	[[ ${stderr_lines[0]} == arcturn:* ]]
}

MARK=(sh -c 'echo ran > marker')

@test "bad input: a grant that does not exist" {
	bad_input exec --grant "$OUT/missing" -- "${MARK[@]}"
	assert_equal "$stderr" "arcturn: grant: $OUT/missing: No such file or directory; create it first (arcturn creates a missing grant only beneath your home)"
}

@test "bad input: a relative grant" {
	mkdir "$WS/rel"
	bad_input exec --grant rel -- "${MARK[@]}"
	[[ $stderr == *rel*absolute* ]]
}

@test "bad input: a workspace that is /" {
	bad_input -C / exec -- sh -c "echo ran > '$WS/marker'"
	[[ $stderr == *"workspace is /"* ]]
}

@test "bad input: a user config with a wrong type" {
	mkdir -p "$HOME/.config/arcturn"
	printf '{\n  "sandbox": 5\n}\n' >"$HOME/.config/arcturn/config.json"
	bad_input exec -- "${MARK[@]}"
	[[ $stderr == "arcturn: $HOME/.config/arcturn/config.json:2:"[0-9]*": "*sandbox* ]]
}

@test "bad input: a user config that is not JSON" {
	mkdir -p "$HOME/.config/arcturn"
	printf '{\n  "sandbox": \n' >"$HOME/.config/arcturn/config.json"
	bad_input exec -- "${MARK[@]}"
	[[ $stderr == "arcturn: $HOME/.config/arcturn/config.json:"[0-9]*:[0-9]*": "* ]]
}

@test "bad input: an unknown --sandbox mode" {
	bad_input exec --sandbox bogus -- "${MARK[@]}"
	[[ $stderr == *bogus* ]]
}

@test "bad input: --network takes on or off" {
	bad_input exec --network maybe -- "${MARK[@]}"
	[[ $stderr == *maybe* ]]
}

@test "bad input: an unknown exec option" {
	bad_input exec --bogus -- "${MARK[@]}"
	[[ $stderr == *bogus* ]]
}

@test "bad input: no command (exec, exec --)" {
	bad_input exec
	[[ $stderr == *"no command"* ]]
	bad_input exec --
	[[ $stderr == *"no command"* ]]
	bad_input exec --grant "$OUT" --
}

# ---- modes and config that must not loosen the policy

@test "--sandbox read-only: the workspace is not writable, the temp dir is" {
	echo keep >"$WS/a"
	XFLAGS=(--sandbox read-only)
	try_all "echo x > '$WS/a'" "touch '$WS/new'"
	must_work "echo t > \"\$TMPDIR/t\" && echo x > /dev/null"
	XFLAGS=()
	assert_equal "$(cat "$WS/a")" keep
	[ ! -e "$WS/new" ]
	assert_equal "$(cat "$TMPDIR/t")" t
}

@test "--sandbox off runs the command as it is" {
	run -0 arcturn exec --sandbox off -- sh -c "echo x > '$OUT/off'"
	assert_equal "$(cat "$OUT/off")" x
}

@test "a workspace .arcturn.json cannot loosen the policy" {
	printf '{ "grants": ["%s"], "sandbox": "off", "network": "on" }\n' "$OUT" >"$WS/.arcturn.json"
	make_outside
	local before
	before=$(snap "$OUT")
	run --separate-stderr -0 arcturn exec -- sh -c "echo x > '$OUT/f'; echo rc=\$?"
	assert_output rc=2
	assert_equal "$(snap "$OUT")" "$before"
	[[ $stderr == *warning* ]]
}

@test "the user config is read-only even when the workspace holds it" {
	[ "$HAVE_LANDLOCK" = 1 ] && [ "$HAVE_USERNS" = 1 ] ||
		skip "needs the helper's mount layer"
	mkdir -p "$HOME/.config/arcturn"
	echo '{ "network": "on" }' >"$HOME/.config/arcturn/config.json"
	local before
	before=$(snap "$HOME/.config")
	XFLAGS=()
	cd "$HOME"
	try_all "echo '{\"sandbox\": \"off\"}' > '$HOME/.config/arcturn/config.json'" \
	    "rm -rf '$HOME/.config/arcturn'" \
	    "mv '$HOME/.config/arcturn' '$HOME/.config/a2'"
	assert_equal "$(snap "$HOME/.config")" "$before"
}

@test "the dry-run session store is not writable by the command" {
	[ "$HAVE_LANDLOCK" = 1 ] && [ "$HAVE_USERNS" = 1 ] ||
		skip "needs the helper's mount layer"
	mkdir -p "$HOME/.arcturn/overlays/s1"
	echo meta >"$HOME/.arcturn/overlays/s1/meta.json"
	local before
	before=$(snap "$HOME/.arcturn/overlays")
	try_all "echo x > '$HOME/.arcturn/overlays/s1/meta.json'" \
	    "mkdir '$HOME/.arcturn/overlays/s2'" "rm -rf '$HOME/.arcturn/overlays/s1'"
	must_work "echo s > '$HOME/.arcturn/scratch'"
	assert_equal "$(snap "$HOME/.arcturn/overlays")" "$before"
}

@test "no Landlock: arcturn exec nests inside itself (bwrap in bwrap)" {
	[ "$HAVE_BWRAP" = 1 ] || skip "bwrap missing or unusable here"
	make_outside
	local before
	before=$(snap "$OUT")
	run "$NOSYS" -l -- "$ARCTURN_BIN" exec -- "$ARCTURN_BIN" exec -- sh -c "
		echo in > '$WS/in'; echo x > '$OUT/f'; echo rc=\$?"
	echo "$output"
	assert_success
	assert_line --regexp '^rc=[1-9]'
	assert_equal "$(cat "$WS/in")" in
	assert_equal "$(snap "$OUT")" "$before"
}

@test "sandbox status begins with a verdict in words that agrees with the writes guarantee" {
	run -0 status_json_get 'j["guarantees"]["writes_outside"]["holds"]'
	local holds=$output
	run -0 "$ARCTURN_BIN" sandbox status
	if [ "$holds" = True ]; then
		assert_line --index 0 --regexp '^verdict: confined: exec lets a command write only in the workspace, the temp dir, .* \([0-9]+ of [0-9]+ guarantees below hold\)$'
	else
		assert_line --index 0 --regexp '^verdict: NOT confined here: '
	fi
	ARCTURN_BACKEND=none run -0 "$ARCTURN_BIN" sandbox status
	assert_line --index 0 --regexp '^verdict: NOT confined here: exec runs commands without a sandbox \(--require-sandbox refuses instead\): .*ARCTURN_BACKEND=none'
}
