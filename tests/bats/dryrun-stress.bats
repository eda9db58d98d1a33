#!/usr/bin/env bats
# Dry run under pressure: parallel writers, fifos and sockets, files that
# vanish while diff runs, a 2 GB sparse file.

load common
load dryrun_helpers
bats_require_minimum_version 1.5.0

setup() { common_setup; }

sess_id() { "$ARCTURN_BIN" --json session show | jq -r .id; }
sess_dir() { echo "$HOME/.arcturn/overlays/$(sess_id)"; }
upper() { echo "$(sess_dir)/upper"; }
dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }

@test "8 parallel writers into one (not yet existing) session lose nothing" {
	printf 'base\n' >shared
	for p in 1 2 3 4 5 6 7 8; do
		(
			for i in 1 2 3 4 5 6; do
				printf 'p%s i%s\n' "$p" "$i" | dw "w$p/f$i" || exit 1
			done
			ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" edit shared --old base \
			    --new "base p$p" >/dev/null 2>&1
			exit 0
		) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
	run arcturn session list
	assert_success
	[ "${#lines[@]}" = 2 ]
	run arcturn --json diff
	assert_success
	[ "$(jq '[.files[] | select(.status == "added")] | length' <<<"$output")" = 48 ]
	for p in 1 2 3 4 5 6 7 8; do
		for i in 1 2 3 4 5 6; do
			[ "$(ARCTURN_DRY_RUN=1 arcturn read "w$p/f$i")" = "p$p i$i" ]
		done
	done
	# Each edit, under the session's lock, saw the one before it: "base"
	# occurs once every time, so all 8 land, each tag exactly once.
	run --separate-stderr env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" read shared
	assert_success
	[ "$(grep -o ' p[0-9]' <<<"$output" | wc -l)" = 8 ]
	[ "$(grep -o ' p[0-9]' <<<"$output" | sort -u | wc -l)" = 8 ]
}

@test "8 parallel writers with an explicit new session id" {
	for p in 1 2 3 4 5 6 7 8; do
		printf '%s\n' "$p" | ARCTURN_SESSION=race dw "f$p" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid"; done
	run arcturn --session race diff --stat
	assert_line " 8 files changed, 8 insertions(+)"
}

@test "fifos and sockets never block: write, read, diff, apply" {
	command -v perl >/dev/null || skip "perl is missing (needed to make a socket)"
	mkfifo pipe
	perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die;
	    bind(S, pack_sockaddr_un($ARGV[0])) or die' "$WS/sock"
	[ -S sock ]
	[ -p pipe ]
	run timeout 10 "$ARCTURN_BIN" read pipe
	assert_failure 1
	assert_output "arcturn: read: pipe: Invalid argument"
	run timeout 10 "$ARCTURN_BIN" read sock
	assert_failure 1
	run timeout 10 env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write pipe <<<"x"
	assert_failure 1
	run timeout 10 env ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write sock <<<"x"
	assert_failure 1
	run timeout 10 "$ARCTURN_BIN" edit pipe --old a --new b
	assert_failure 1
	# A captured file replaced by a fifo in the workspace, and a fifo and
	# a socket inside the session (as `exec --dry-run` could leave them).
	printf 'a\n' >f
	dw f <<<"b"
	dw g <<<"c"
	rm f && mkfifo f
	record_base "$(sess_dir)" upipe usock
	mkfifo -m 640 "$(upper)/upipe"
	perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die;
	    bind(S, pack_sockaddr_un($ARGV[0])) or die' "$(upper)/usock"
	run timeout 10 "$ARCTURN_BIN" diff
	assert_success
	assert_line "# arcturn: upipe: new fifo, mode 640"
	assert_line --partial "# arcturn: usock: new socket or device, mode "
	assert_line --partial "; a socket: arcturn does not apply sockets; kept"
	assert_output --partial "diff --git a/g b/g"
	run timeout 10 "$ARCTURN_BIN" diff --stat
	assert_success
	run timeout 10 "$ARCTURN_BIN" apply --yes
	[ "$status" -ne 124 ]
	assert_failure 1
	assert_line "arcturn: apply: f: changed since capture; refused"
	assert_line "arcturn: apply: usock: a socket: arcturn does not apply sockets; kept"
	# the fifo is applied as a fifo; the socket stays pending, never dropped
	[ -p f ]
	[ "$(cat g)" = c ]
	[ -p upipe ]
	[ "$(stat -c %a upipe)" = 640 ]
	[ ! -e usock ]
	run arcturn session show
	assert_line --partial "  A usock  (a socket: arcturn does not apply sockets; kept)"
}

@test "files vanishing while diff runs give one-line warnings, never a crash" {
	for i in $(seq 1 30); do printf 'old %s\n' "$i" >"f$i"; done
	for i in $(seq 1 30); do printf 'new %s\n' "$i" | dw "f$i"; done
	up=$(upper)
	(
		while [ ! -e "$T/stop" ]; do
			for i in $(seq 1 30); do
				mv "f$i" "f$i.x" 2>/dev/null; mv "f$i.x" "f$i" 2>/dev/null
			done
		done
	) &
	flipper=$!
	warned=0
	for n in $(seq 1 25); do
		run --separate-stderr "$ARCTURN_BIN" diff --full
		[ "$status" -eq 0 ] || { touch "$T/stop"; wait $flipper; false; }
		[[ "${lines[-1]}" =~ ^digest:\ [0-9a-f]{64}$ ]] || { touch "$T/stop"; false; }
		while IFS= read -r l; do
			[ -z "$l" ] && continue
			[[ "$l" =~ ^arcturn:\ diff:\ f[0-9]+(\.x)?:\ (changed\ during\ diff\;\ left\ out|could\ not\ compare) ]] ||
			    { echo "unexpected: $l"; touch "$T/stop"; false; }
			warned=$((warned + 1))
		done <<<"$stderr"
	done
	touch "$T/stop"
	wait $flipper
	echo "# $warned warning(s) seen" >&3
	[ -d "$up" ]
}

@test "a 2 GB sparse file: diffed as binary without being loaded, applied" {
	avail=$(df -Pk "$T" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge $((3 * 1024 * 1024)) ] || skip "needs 3 GB free in $T, have $((avail / 1024)) MB"
	truncate -s 2G big
	printf 'small\n' | dw big
	[ "$(stat -c %s "$(upper)/big")" = 6 ]
	# 1 GB of address space: loading the file could not fit.
	run bash -c 'ulimit -v 1048576 && exec "$0" diff' "$ARCTURN_BIN"
	assert_success
	assert_line "Binary files a/big and b/big differ"
	run bash -c 'ulimit -v 1048576 && exec "$0" diff --stat' "$ARCTURN_BIN"
	assert_line " big | Bin 2147483648 -> 6 bytes"
	run arcturn apply --yes
	assert_success
	assert_output --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat big)" = small ]
}

# apply of one directory's files runs in one thread (plan.c): strace
# holds each rename 10 ms, so 150 files take 1.5 s, over the second
# after which apply shows its progress
slow_apply() {
	strace -o /dev/null -f -e trace=renameat2 \
		-e inject=renameat2:delay_enter=10000 "$ARCTURN_BIN" apply --yes "$@"
}

@test "an apply over a second shows its progress on a terminal; -q and no terminal show none" {
	command -v strace >/dev/null || skip "strace is not installed"
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	declare -f slow_apply >"$BATS_TEST_TMPDIR/slow.bash"
	pend() { for i in $(seq 150); do echo "$i" | dw "d/f$i" || return 1; done; }
	pend
	run script -qec "bash -c '. $BATS_TEST_TMPDIR/slow.bash; ARCTURN_BIN=$ARCTURN_BIN slow_apply'" /dev/null
	assert_success
	# counted in files as the prompt counts them (the new folder d is
	# none), shown as it goes, and last when all are done
	assert_line --index 0 --regexp $'^\rarcturn: apply: [0-9]+/150\r.*\rarcturn: apply: 150/150\r?$'
	assert_output --partial "Applied 150 file(s)"
	[ "$(cat d/f150)" = 150 ]
	rm -rf d
	pend
	run script -qec "bash -c '. $BATS_TEST_TMPDIR/slow.bash; ARCTURN_BIN=$ARCTURN_BIN slow_apply -q'" /dev/null
	assert_success
	refute_output --partial "arcturn: apply:"
	[ "$(cat d/f150)" = 150 ]
	rm -rf d
	pend
	run slow_apply
	assert_success
	refute_output --partial "arcturn: apply:"
	assert_output --partial "Applied 150 file(s)"
}
