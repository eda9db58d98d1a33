#!/usr/bin/env bats
# The policy on writes, tried as an attacker would: a confined
# command (or a dry run and the user's apply, or the file tools) plants
# something in git's control files, and the judge is the user's next git
# run outside the sandbox, with a payload that leaves a marker if it ever
# runs. Also: the file tools refuse what exec's sandbox refuses, and
# hostile inputs (TMPDIR, a symlinked -C) are refused before any backend.
# Every backend this machine runs; tests/run runs this as root and as an
# unprivileged user.

load common
load exec_helpers
load git_helpers

setup_file() { probe_machine; }
setup() { common_setup; git_setup; }

# The backends that protect paths: the helper with its mount layer, bwrap.
# (The helper with Landlock only protects none; exec-git.bats checks that
# sandbox status says so.)

# t_commondir BACKEND: .git/commondir (missing in every ordinary repo)
# pointed at a hostile repository next to it
t_commondir() {
	use_backend "$1"
	git_repo "$WS"
	run arcturn exec -- sh -c "
		cp -r .git evil && rm -rf evil/hooks && printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch $MARK; false\"\n' > evil/config
		echo ../evil > .git/commondir; echo planted=\$?"
	echo "$output"
	judge "$WS"
	# the one line says where it went; git ignores that name
	assert_output --regexp "\.git/commondir: created during the run at a protected path that did not exist; moved aside to $WS/\.git/commondir\.arcturn-aside-[a-z2-7]{12}"
	[ ! -e .git/commondir ]
	assert_equal "$(cat .git/commondir.arcturn-aside-*)" ../evil
}

@test "helper: .git/commondir to a hostile repository does not reach the next git status" { t_commondir helper; }
@test "bwrap: .git/commondir to a hostile repository does not reach the next git status" { t_commondir bwrap; }

# t_gitfile BACKEND WHAT: the .git file of a linked worktree (wt) or of a
# submodule (sub) rewritten to gitdir: an attacker's repository
t_gitfile() {
	use_backend "$1"
	local dir before
	git_repo "$WS"
	if [ "$2" = wt ]; then
		git -C "$WS" worktree add -q wt -b wt
		dir=$WS/wt
	else
		git_submodule "$WS" sub
		dir=$WS/sub
	fi
	before=$(cat "$dir/.git")
	run arcturn exec -- sh -c "
		mkdir -p '$TMPDIR/evil' && cp -r .git/objects .git/refs .git/HEAD '$TMPDIR/evil/'
		printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch $MARK; false\"\n' > '$TMPDIR/evil/config'
		echo 'gitdir: $TMPDIR/evil' > '$dir/.git'; echo planted=\$?"
	echo "$output"
	refute_line planted=0
	assert_equal "$(cat "$dir/.git")" "$before"
	judge "$dir"
	judge "$WS"
}

@test "helper: a worktree's .git file cannot be pointed at an attacker's repository" { t_gitfile helper wt; }
@test "bwrap: a worktree's .git file cannot be pointed at an attacker's repository" { t_gitfile bwrap wt; }
@test "helper: a submodule's .git file cannot be pointed at an attacker's repository" { t_gitfile helper sub; }
@test "bwrap: a submodule's .git file cannot be pointed at an attacker's repository" { t_gitfile bwrap sub; }

# t_module_config BACKEND: a submodule's .git/modules/NAME/config (which
# git rewrites itself, so no mount covers it) gets an fsmonitor; the
# superproject's git status recurses into the submodule
t_module_config() {
	use_backend "$1"
	local before
	git_repo "$WS"
	git_submodule "$WS" lib
	before=$(cat .git/modules/lib/config)
	run arcturn exec -- sh -c "printf '[core]\n\tfsmonitor = \"touch $MARK; false\"\n' >> .git/modules/lib/config; echo planted=\$?"
	echo "$output"
	assert_output --partial ".git/modules/lib/config: a protected file changed during the run; put back as it was"
	assert_equal "$(cat .git/modules/lib/config)" "$before"
	judge "$WS"
	judge "$WS/lib"
	# replaced by a symlink to a hostile file, or removed: the same
	run arcturn exec -- sh -c "printf '[core]\n\tfsmonitor = \"touch $MARK; false\"\n' > '$TMPDIR/c'; ln -sf '$TMPDIR/c' .git/modules/lib/config"
	assert_equal "$(cat .git/modules/lib/config)" "$before"
	[ ! -L .git/modules/lib/config ]
	judge "$WS/lib"
}

@test "helper: a submodule's config is put back before git runs outside" { t_module_config helper; }
@test "bwrap: a submodule's config is put back before git runs outside" { t_module_config bwrap; }

# t_hooks_path BACKEND MADE: core.hooksPath -> .husky/ (existing, or
# missing: MADE=missing), and a pre-commit hook written there; the judge
# is the user's next git commit
t_hooks_path() {
	use_backend "$1"
	git_repo "$WS"
	git -C "$WS" config core.hooksPath .husky
	[ "$2" = missing ] || mkdir .husky
	run arcturn exec -- sh -c "mkdir -p .husky; printf '#!/bin/sh\ntouch $MARK\n' > .husky/pre-commit && chmod +x .husky/pre-commit; echo planted=\$?"
	echo "$output"
	refute_line planted=0
	[ ! -e .husky/pre-commit ]
	echo x >x
	git add x
	git commit -q -m x
	[ ! -e "$MARK" ]
}

@test "helper: core.hooksPath's folder is protected" { t_hooks_path helper existing; }
@test "bwrap: core.hooksPath's folder is protected" { t_hooks_path bwrap existing; }
@test "helper: core.hooksPath's folder is protected before it exists" { t_hooks_path helper missing; }
@test "bwrap: core.hooksPath's folder is protected before it exists" { t_hooks_path bwrap missing; }

# t_hooks_missing BACKEND: a repository without .git/hooks gets one
t_hooks_missing() {
	use_backend "$1"
	git_repo "$WS"
	rm -rf .git/hooks
	run arcturn exec -- sh -c "mkdir -p .git/hooks; printf '#!/bin/sh\ntouch $MARK\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit; echo planted=\$?"
	echo "$output"
	refute_line planted=0
	[ -z "$(ls -A .git/hooks)" ]
	echo x >x
	git add x
	git commit -q -m x
	[ ! -e "$MARK" ]
}

@test "helper: a .git/hooks that did not exist cannot be planted" { t_hooks_missing helper; }
@test "bwrap: a .git/hooks that did not exist cannot be planted" { t_hooks_missing bwrap; }

# t_dry_run_commondir: under --dry-run the missing file lands in the
# session, and apply refuses it, keeps it pending, counts it as failed
@test "helper: exec --dry-run cannot land .git/commondir through apply" {
	use_backend helper
	git_repo "$WS"
	run arcturn exec --dry-run -- sh -c "
		cp -r .git evil && printf '[core]\n\tfsmonitor = \"touch $MARK; false\"\n' > evil/config
		echo ../evil > .git/commondir; echo hi > ok.txt"
	assert_success
	run arcturn apply --yes
	echo "$output"
	assert_failure 1
	assert_line "arcturn: apply: .git/commondir: protected path; refused"
	assert_line --regexp "^Applied [0-9]+, failed 1. Pending changes kept.$"
	[ ! -e .git/commondir ]
	assert_equal "$(cat ok.txt)" hi
	judge "$WS"
	run arcturn diff --stat
	assert_line --partial ".git/commondir"
}

@test "helper: apply refuses a hard link to a path protected since the dry run" {
	use_backend helper
	run arcturn exec --dry-run -- sh -c 'echo s > p; ln p q; echo t > r'
	assert_success
	# protected after capture: its hard link must not give it a second name
	echo '{"protect": ["p"]}' >.arcturn.json
	run arcturn apply --yes
	echo "$output"
	assert_failure 1
	assert_line "arcturn: apply: p: protected path; refused"
	assert_line "arcturn: apply: q: protected path; refused"
	assert_line "Applied 1, failed 2. Pending changes kept."
	[ ! -e p ]
	[ ! -e q ]
	assert_equal "$(cat r)" t
}

# the file tools: write --dry-run .git/config + apply --yes
@test "write --dry-run .git/config with a payload, then apply --yes: refused" {
	git_repo "$WS"
	local before
	before=$(cat .git/config)
	evil_config "$T/payload"
	run arcturn write --dry-run .git/config <"$T/payload"
	assert_failure 1
	assert_output "arcturn: write: .git/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	# a session made before the policy held: apply refuses it too
	mkdir -p "$T/st"
	ARCTURN_HOME=$T/st arcturn write --dry-run ok.txt <<<"ok"
	id=$(ls "$T/st/overlays" | grep -v '^default' | head -1)
	mkdir -p "$T/st/overlays/$id/upper/.git"
	cp "$T/payload" "$T/st/overlays/$id/upper/.git/config"
	run env ARCTURN_HOME="$T/st" "$ARCTURN_BIN" apply --yes
	echo "$output"
	assert_failure 1
	assert_line "arcturn: apply: .git/config: protected path; refused"
	assert_equal "$(cat .git/config)" "$before"
	assert_equal "$(cat ok.txt)" ok
	judge "$WS"
}

@test "write and edit without dry run refuse git's control files and paths outside the roots" {
	git_repo "$WS"
	local before
	before=$(cat .git/config)
	run arcturn write .git/hooks/post-commit <<<"#!/bin/sh"
	assert_failure 1
	assert_output "arcturn: write: .git/hooks/post-commit: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	run arcturn write .git/commondir <<<"../evil"
	assert_failure 1
	assert_output "arcturn: write: .git/commondir: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	run arcturn edit .git/config --old main --new evil
	assert_failure 1
	assert_output "arcturn: edit: .git/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	echo original >"$OUT/f"
	run arcturn write "$OUT/f" <<<"lost"
	assert_failure 1
	assert_output "arcturn: write: $OUT/f: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	run arcturn write "$OUT/new" <<<"lost"
	assert_failure 1
	run arcturn edit "$OUT/f" --old original --new lost
	assert_failure 1
	assert_output "arcturn: edit: $OUT/f: outside the workspace $WS; write and edit take paths inside it (-C DIR names another workspace)"
	# through a symlink, or .., into a protected path: the same
	ln -s .git g
	run arcturn write g/config <<<"x"
	assert_failure 1
	assert_output "arcturn: write: g/config: protected path (git control file); change it outside arcturn (git's hooks and config decide what git runs)"
	run arcturn write sub/../.git/config <<<"x"
	assert_failure 1
	# what read back from outside says
	[ ! -e .git/hooks/post-commit ]
	[ ! -e .git/commondir ]
	assert_equal "$(cat .git/config)" "$before"
	assert_equal "$(cat "$OUT/f")" original
	[ ! -e "$OUT/new" ]
	# inside the workspace it writes; the temp dir, a root of exec's, is
	# no place of the file tools
	arcturn write ok.txt <<<"ok"
	run -1 arcturn write "$TMPDIR/t" <<<"t"
	assert_equal "$(cat ok.txt)" ok
	[ ! -e "$TMPDIR/t" ]
	judge "$WS"
}

@test "the workspace's .arcturn.json can protect more with the file tools, never less" {
	git_repo "$WS"
	echo keep >secret.env
	echo '{"protect": ["secret.env", "new.cfg"]}' >.arcturn.json
	run arcturn write secret.env <<<"lost"
	assert_failure 1
	assert_output "arcturn: write: secret.env: protected path (\"protect\" entry secret.env); writable once \"protect\" in the config leaves it out"
	run arcturn write new.cfg <<<"x"
	assert_failure 1
	[ ! -e new.cfg ]
	# an empty list there does not drop the defaults
	echo '{"protect": []}' >.arcturn.json
	run arcturn write .git/config <<<"x"
	assert_failure 1
	# sandbox mode off (user config only) is no policy at all
	mkdir -p "$HOME/.config/arcturn"
	echo '{"sandbox": "off"}' >"$HOME/.config/arcturn/config.json"
	arcturn write secret.env <<<"mine"
	assert_equal "$(cat secret.env)" mine
}

# a folder swapped for a symlink between the check and the write: the
# second check, on the folder actually opened, refuses. The swapper is one
# perl process that swaps until the writes are done (a shell loop forks
# four times a swap: it swapped ~40 times a second, 2000 swaps ran on for
# half a minute after the last write). Measured here: of 200 writes, 45-58
# were refused by the second check ("a folder on its way changed": the
# window hit) with this swapper, 0-1 with the shell loop; 100 writes hit it
# ~25 times.
@test "write: a folder swapped for a symlink into .git while it writes is refused" {
	command -v perl >/dev/null || skip "perl is missing (it swaps the folder)"
	git_repo "$WS"
	local before i
	before=$(cat .git/config)
	mkdir d
	# a write that finds d gone makes d itself: moved away, to swap on
	perl -e 'my $n = 0;
		until (-e "stop") {
			rename("d", "d.real") or next;
			symlink(".git", "d") and unlink("d");
			rename("d", "d.made." . $n++) unless rename("d.real", "d");
			rename("d.real", "d");
		}' &
	for i in $(seq 100); do
		arcturn write d/config <<<"pwned $i" 2>/dev/null || true
	done
	touch stop
	wait
	assert_equal "$(cat .git/config)" "$before"
}

# t_tmpdir VALUE: exec refuses, 125, one line naming TMPDIR; nothing runs
t_tmpdir() {
	run env TMPDIR="$1" "$ARCTURN_BIN" exec -- touch "$WS/ran"
	echo "$output"
	assert_failure 125
	assert_output --regexp "^arcturn: exec: TMPDIR: [^ ]+: (is|holds) .*; refused"
	[ ! -e "$WS/ran" ]
}

@test "TMPDIR=/ is refused, exit 125" { t_tmpdir /; }
@test "TMPDIR=\$HOME is refused, exit 125" { t_tmpdir "$HOME"; }
@test "TMPDIR above the workspace, or the workspace itself, is refused" {
	t_tmpdir "$T"
	t_tmpdir "$WS"
}
@test "TMPDIR holding the state dir or the user config is refused" {
	mkdir -p "$T/tmp/st"
	ARCTURN_HOME=$T/tmp/st t_tmpdir "$T/tmp"
	mkdir -p "$T/tmp/xdg/arcturn"
	XDG_CONFIG_HOME=$T/tmp/xdg t_tmpdir "$T/tmp"
}

@test "a bad TMPDIR does not stop write, diff and apply, which do not use it" {
	TMPDIR=/ arcturn write --dry-run f <<<"x"
	TMPDIR=/ arcturn diff >/dev/null
	TMPDIR=/ arcturn apply --yes
	assert_equal "$(cat f)" x
	run env TMPDIR=/ "$ARCTURN_BIN" sandbox status
	assert_success
	assert_output --partial "warning: exec refuses to run: TMPDIR: /"
}

# t_ws_swap BACKEND: a workspace in the temp dir is swapped for a symlink
# by a confined run (the temp dir is writable); the next run with that
# -C must not make the link's target writable (nor, from a grant)
t_ws_swap() {
	use_backend "$1"
	local ws=$TMPDIR/p/ws before
	mkdir -p "$ws" "$T/g"
	make_outside
	before=$(snap "$OUT")
	run arcturn exec -- sh -c "mv '$ws' '$ws.old' && ln -s '$OUT' '$ws' && echo swapped"
	assert_line swapped
	[ -L "$ws" ]
	run arcturn -C "$ws" exec -- sh -c "echo pwned > '$OUT/f'"
	echo "$output"
	assert_failure 125
	assert_output --partial "reached through the symlink $ws, which lies in the writable root"
	assert_equal "$(snap "$OUT")" "$before"
	# the file tools too (exit 2: a config error)
	run arcturn -C "$ws" write f <<<"pwned"
	assert_failure 2
	# a link in a grant, and one above the workspace's own folder
	ln -s "$OUT" "$T/g/ws"
	run arcturn -C "$T/g/ws/dir" exec --grant "$T/g" -- sh -c "echo pwned > '$OUT/dir/g'"
	assert_failure 125
	assert_output --partial "reached through the symlink $T/g/ws"
	assert_equal "$(snap "$OUT")" "$before"
	# a link elsewhere (not in a root) is the user's own: fine
	ln -s "$WS" "$T/wslink"
	run arcturn -C "$T/wslink" exec -- touch ok
	assert_success
	[ -e "$WS/ok" ]
}

@test "helper: a symlinked -C workspace in the temp dir is refused" { t_ws_swap helper; }
@test "helper-landlock: a symlinked -C workspace in the temp dir is refused" { t_ws_swap helper-landlock; }
@test "bwrap: a symlinked -C workspace in the temp dir is refused" { t_ws_swap bwrap; }
