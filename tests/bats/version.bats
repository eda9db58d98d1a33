#!/usr/bin/env bats
# --version names the build: version, commit, target, the embedded helper's
# SHA-256, the Landlock ABIs; --version --json says the same as one line.

load common

setup() { common_setup; }

@test "--version: version first, then commit, target, helper and Landlock ABIs" {
	run -0 arcturn --version
	assert_line --index 0 --regexp '^arcturn [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --index 1 --regexp '^commit: ([0-9a-f]{40}(-dirty)?|unknown)$'
	assert_line --index 2 "target: $(uname -m)-linux-musl"
	assert_line --index 3 --regexp '^helper: landlock-helper sha256 [0-9a-f]{64}$'
	assert_line --index 4 --regexp '^landlock: knows ABI 1 to [0-9]+$'
	[ "${#lines[@]}" = 5 ]
}

@test "--version --json and --json --version: one JSON line, the same facts" {
	run -0 arcturn --version
	text=$output
	run -0 arcturn --version --json
	a=$output
	run -0 arcturn --json --version
	[ "$a" = "$output" ]
	[ "${#lines[@]}" = 1 ]
	python3 -c '
import json, sys
t = dict(l.split(": ", 1) for l in sys.argv[1].splitlines()[1:])
j = json.loads(sys.argv[2])
assert j["schema"] == "arcturn/version/v1", j
assert "arcturn " + j["version"] == sys.argv[1].splitlines()[0]
assert j["commit"] == t["commit"] and j["target"] == t["target"]
assert "landlock-helper sha256 " + j["helper_sha256"] == t["helper"]
n = int(t["landlock"].rsplit(" ", 1)[1])
assert j["landlock_abis"] == list(range(1, n + 1))
assert sorted(j) == ["commit", "helper_sha256", "landlock_abis", "schema", "target", "version"]
' "$text" "$output"
}

@test "--version --json: a failed write to stdout is an error" {
	[ -w /dev/full ] || skip "no /dev/full"
	run sh -c '"$ARCTURN_BIN" --version --json >/dev/full'
	assert_failure
}

@test "--version wins over a command after it; an unknown option before it is an error" {
	run -0 arcturn --version exec -- false
	assert_line --index 0 --regexp '^arcturn '
	run arcturn --bogus --version
	assert_failure 2
}
