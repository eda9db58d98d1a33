#!/usr/bin/env bats
# The user's keyrings (issue 25, 5): the user keyring grants its uid every
# right, and is shared by every process of the user, whatever its session
# keyring; a user namespace does not help, since the helper maps the
# user's ids to themselves and the real keyring stays reachable by
# serial. The command must not add to, link into, search or change the
# user keyring or the user session keyring, by name (@u, @us) or by
# serial; its own keyrings keep working. Each attack is first made
# outside arcturn (the control), then from inside on every backend. The
# attacks touch only keys the test makes (an escape cannot harm the
# user's own): never clear or setperm here, a user keyring cannot be
# given its rights back.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() {
	common_setup
	command -v keyctl >/dev/null || skip "keyctl (Debian: keyutils) missing"
	U=$(keyctl show @u 2>/dev/null | awk 'NR == 2 { print $1 }')
	US=$(keyctl show @us 2>/dev/null | awk 'NR == 2 { print $1 }')
	[ -n "$U" ] && [ -n "$US" ] ||
		skip "the user's keyrings are out of reach here even outside arcturn"
	NAME=arcturn-test-$$-$BATS_TEST_NUMBER
	KEY=
}
teardown() {
	# whatever got in (the control's key, or an escape's) leaves again
	local k r
	if [ -n "$KEY" ]; then
		keyctl unlink "$KEY" "$U" >/dev/null 2>&1 || true
		keyctl unlink "$KEY" "$US" >/dev/null 2>&1 || true
	fi
	[ -n "${U:-}" ] || return 0
	for r in "$U" "$US"; do
		for k in $(keyctl list "$r" 2>/dev/null | awk -v n="$NAME" \
		    '$0 ~ n { sub(":", "", $1); print $1 }'); do
			keyctl unlink "$k" "$r" >/dev/null 2>&1 || true
		done
	done
}

# t_keys BACKEND
t_keys() {
	use_backend "$1"
	# the control: by serial, from outside, the user keyring takes a key
	run keyctl add user "$NAME-ctl" secret "$U"
	assert_success
	KEY=$output
	run keyctl print "$KEY"
	assert_output secret
	keyctl list "$U" >"$T/before"
	# In a session keyring of its own, as arcturn starts every command
	# (without one, @s is the user session keyring, which links the user
	# keyring: the command would possess the user's keys and could revoke
	# them by serial; that is arcturn's part, not the helper's filter).
	# shellcheck disable=SC2016
	run keyctl session - "$ARCTURN_BIN" exec -- sh -c '
		for op in "keyctl add user $1-a x @u" "keyctl add user $1-b x $2" \
		    "keyctl add user $1-c x @us" "keyctl add user $1-d x $3" \
		    "keyctl link $4 $3" "keyctl newring $1-r $2" \
		    "keyctl search @u user $1-ctl" "keyctl revoke $4" \
		    "keyctl unlink $4 $2" "keyctl show @u" \
		    "keyctl get_persistent @s" "keyctl reqkey user $1-e x $2"; do
			if $op >/dev/null 2>&1; then echo "ESCAPED: $op"
			else echo "refused: $op"; fi
		done
		keyctl session - sh -c "keyctl add user own v @s >/dev/null &&
		    keyctl print %user:own" && echo "own keyring works"' \
	    sh "$NAME" "$U" "$US" "$KEY"
	echo "$output"
	assert_success
	refute_output --partial ESCAPED
	[ "$(grep -c '^refused: ' <<<"$output")" -eq 12 ]
	assert_line "v"
	assert_line "own keyring works"
	[ "$(grep -c '^Joined session keyring' <<<"$output")" -eq 2 ]
	# nothing changed outside: the same keys, the control's key intact
	keyctl list "$U" >"$T/after"
	diff "$T/before" "$T/after"
	run keyctl print "$KEY"
	assert_output secret
}

@test "helper: the user's keyrings are out of reach, by name and by serial" { t_keys helper; }
@test "helper-landlock: the user's keyrings are out of reach, by name and by serial" { t_keys helper-landlock; }
@test "bwrap: the user's keyrings are out of reach, by name and by serial" { t_keys bwrap; }
