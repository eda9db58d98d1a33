#!/usr/bin/env bats
# Review: the per-file cap (the first 200 body lines, then the marker),
# diff PATH..., --name-only, --name-status, and the prompt's exit status.

load common

setup() { common_setup; }

dw() { ARCTURN_DRY_RUN=1 "$ARCTURN_BIN" write "$@"; }

# The body lines (after +++, before the marker) of file $2 in diff text $1.
body() {
	awk -v f="+++ b/$2" '
		$0 == f { on = 1; next }
		on && /^(diff --git |\.\.\. diff truncated: |digest: )/ { exit }
		on { n++ }
		END { print n + 0 }' <<<"$1"
}

@test "a long first hunk shows its first 200 body lines, then the marker with the count" {
	seq 1 1000 >big
	seq 1 1000 | sed 's/$/ new/' | dw big
	run arcturn diff --full
	assert_success
	full=$(body "$output" big)
	[ "$full" = 2001 ]	# one hunk: its header, 1000 - and 1000 +
	capped_digest=$(sed -n 's/^digest: //p' <<<"$output")
	run arcturn diff
	assert_success
	[ "$(body "$output" big)" = 200 ]
	assert_line "... diff truncated: 1801 more lines for big"
	assert_line "@@ -1,1000 +1,1000 @@"
	assert_line "-199"
	refute_line "-200"
	[ "$(sed -n 's/^digest: //p' <<<"$output")" = "$capped_digest" ]
	# with colour, the same lines are cut
	run arcturn diff --color=always
	[ "$(grep -c $'^\e\\[3[12]m[-+]' <<<"$output")" = 199 ]
	assert_line --partial "diff truncated: 1801 more lines for big"
}

@test "a file under the cap is shown whole, without a marker" {
	seq 1 50 >small
	seq 1 50 | sed 's/5/five/' | dw small
	run arcturn diff
	assert_success
	refute_output --partial "diff truncated"
	[ "$(body "$output" small)" -gt 10 ]
	[ "$output" = "$(arcturn diff --full)" ]
}

@test "diff PATH... shows the changes at or beneath the paths, without a digest" {
	mkdir -p src/a docs
	printf 'x\n' >src/a/one.c
	printf 'y\n' >docs/readme
	dw src/a/one.c <<<"X"
	dw src/a/two.c <<<"new"
	dw docs/readme <<<"Y"
	run arcturn diff src
	assert_success
	assert_line "diff --git a/src/a/one.c b/src/a/one.c"
	assert_line "diff --git a/src/a/two.c b/src/a/two.c"
	refute_output --partial "docs/readme"
	refute_output --partial "digest:"
	run arcturn diff docs/readme src/a/two.c
	assert_success
	[ "$(grep -c '^diff --git' <<<"$output")" = 2 ]
	run arcturn -C "$WS" diff "$WS/src/a/one.c"
	assert_success
	assert_line "+X"
	[ "$(grep -c '^diff --git' <<<"$output")" = 1 ]
	run arcturn diff nothing.c
	assert_failure 1
	assert_output "arcturn: diff: nothing.c: no pending change there"
	run arcturn diff /etc/passwd
	assert_failure 1
	assert_output "arcturn: diff: /etc/passwd: outside the workspace"
	run arcturn diff --stat src/a
	assert_success
	assert_line " 2 files changed, 2 insertions(+), 1 deletion(-)"
}

@test "diff PATH with nothing pending at all is refused" {
	run arcturn diff some/path
	assert_failure 1
	assert_output "arcturn: diff: some/path: no pending change there"
}

@test "--name-only and --name-status list files as git does" {
	mkdir -p d
	printf 'x\n' >d/old
	printf 'm\n' >mode.sh
	dw d/old <<<"changed"
	dw d/new <<<"new"
	dw 'sp ace' <<<"q"
	run arcturn diff --name-only
	assert_success
	assert_output "$(printf 'd/new\nd/old\nsp ace')"
	run arcturn diff --name-status
	assert_success
	assert_output "$(printf 'A\td/new\nM\td/old\nA\tsp ace')"
	run arcturn diff --name-status d/old
	assert_success
	assert_output "$(printf 'M\td/old')"
	if command -v git >/dev/null; then
		# the same names git prints for the applied change
		git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base
		expect=$(arcturn diff --name-status)
		arcturn apply --yes >/dev/null
		git add -A
		[ "$(git diff --cached --name-status)" = "$expect" ]
	fi
}

@test "declining the apply prompt exits 1 and keeps everything pending" {
	command -v script >/dev/null || skip "script(1) is missing"
	printf 'a\n' >f
	dw f <<<"b"
	run script -qec "$(printf '%q ' "$ARCTURN_BIN" apply)" /dev/null <<<"k"
	assert_failure 1
	assert_output --partial "Kept 1 pending file(s)."
	[ "$(cat f)" = a ]
	run arcturn diff --name-only
	assert_output "f"
}

@test "a conflict is marked, not shown as the change deleting the user's edit; diff --json and session show say it" {
	printf 'one\ntwo\n' >f
	printf 'g\n' >g
	dw f <<<"tool"
	dw g <<<"tool g"
	printf 'one\ntwo\nmine\n' >f
	run arcturn diff
	assert_success
	assert_line "# arcturn: f: conflict: changed since capture"
	refute_line "-mine"
	refute_line "diff --git a/f b/f"
	assert_line "+tool g"
	digest=$(sed -n 's/^digest: //p' <<<"$output")
	run arcturn --json diff
	assert_success
	[ "$(jq -r '.files[] | select(.path == "f") | .conflict' <<<"$output")" = "changed since capture" ]
	[ "$(jq -r '.files[] | select(.path == "g") | .conflict' <<<"$output")" = null ]
	[ "$(jq -r .digest <<<"$output")" = "$digest" ]
	run arcturn session show
	assert_line "  M f  (conflict: changed since capture)"
	assert_line "  M g"
	run arcturn --json session show
	[ "$(jq -r '.files[] | select(.path == "f") | .conflict' <<<"$output")" = "changed since capture" ]
	# a file deleted since capture is one too
	rm g
	run arcturn diff
	assert_line "# arcturn: g: conflict: deleted since capture"
}

@test "discard PATH drops those paths only; the rest stays pending" {
	printf 'f\n' >f
	dw f <<<"tool"
	dw g <<<"tool g"
	dw new/h <<<"h"
	dw new/i <<<"i"
	run arcturn discard f
	assert_failure 2
	assert_output --partial "use --yes"
	run arcturn discard --yes f new/h
	assert_success
	assert_output "Discarded 2 pending file change(s); 2 left."
	run arcturn diff --name-status
	assert_output "$(printf 'A\tg\nA\tnew/i')"
	run arcturn discard --yes nothere
	assert_failure 1
	assert_output "arcturn: discard: nothere: no pending change there"
	arcturn apply --yes >/dev/null
	[ "$(cat f)" = f ]
	[ ! -e new/h ]
	[ "$(cat new/i)" = i ]
}

@test "apply --force PATH lands over a conflict; the user's version is in the apply's turn" {
	printf 'base\n' >f
	dw f <<<"tool"
	dw g <<<"g"
	printf 'mine\n' >f
	run arcturn apply --yes
	assert_failure 1
	assert_line "arcturn: apply: f: changed since capture; refused"
	[ "$(cat f)" = mine ]
	run arcturn apply --yes --force
	assert_failure 2
	assert_output --partial "--force lands over conflicts only at the paths named"
	# not confirmed (no terminal, no --yes): the conflict stays one
	run arcturn apply --force f </dev/null
	assert_failure 2
	[ "$(cat f)" = mine ]
	run arcturn diff
	assert_output --partial "f: conflict: changed since capture"
	run arcturn apply --yes
	assert_failure 1
	[ "$(cat f)" = mine ]
	run arcturn apply --yes --force f
	assert_success
	assert_line "f: conflict: changed since capture; --force lands over it (your version goes into the apply's turn)"
	assert_line --regexp '^Applied 1 file\(s\) \(as turn [0-9]+\)\.$'
	[ "$(cat f)" = tool ]
	arcturn undo
	[ "$(cat f)" = mine ]
}

@test "session rm asks like discard: no terminal and no --yes refuses (exit 2), --yes removes" {
	dw f <<<"x"
	id=$("$ARCTURN_BIN" --json session show | jq -r .id)
	run arcturn session rm "$id"
	assert_failure 2
	assert_output "arcturn: session: no terminal to confirm on; use --yes to remove the session and its 1 pending file change(s)"
	[ -d "$HOME/.arcturn/overlays/$id" ]
	run arcturn session rm --yes "$id"
	assert_success
	assert_output "Removed session $id."
	[ ! -e "$HOME/.arcturn/overlays/$id" ]
	# nothing pending: nothing to ask about
	arcturn --session empty1 write --dry-run g <<<"y"
	arcturn --session empty1 discard --yes g >/dev/null
	run arcturn session rm empty1
	assert_success
}

@test "diff goes through \$PAGER on a terminal only; --no-pager and --json never page" {
	command -v script >/dev/null || skip "no script(1) to give diff a terminal"
	dw f <<<"x"
	printf '#!/bin/sh\necho PAGED; cat\n' >"$T/pager"
	chmod +x "$T/pager"
	# not a terminal: no pager
	PAGER="$T/pager" run arcturn diff
	refute_line PAGED
	# a terminal: the pager gets the diff
	run env PAGER="$T/pager" script -qec "'$ARCTURN_BIN' diff --color=never" /dev/null
	assert_line --partial PAGED
	assert_line --partial "+x"
	run env PAGER="$T/pager" script -qec "'$ARCTURN_BIN' diff --no-pager --color=never" /dev/null
	refute_line --partial PAGED
	assert_line --partial "+x"
	run env PAGER="$T/pager" script -qec "'$ARCTURN_BIN' --json diff" /dev/null
	refute_line --partial PAGED
}
