#!/usr/bin/env bats
# Protected paths that did not exist when the command started, and
# watched files, which no mount covers: arcturn deals with them once the
# command has ended. Each attack tries to make that fail so that the
# planted file outlives the run (names taken in advance, a read-only
# folder, a symlinked parent); the judge is the user's next git run
# outside the sandbox, and a control runs the same plant outside arcturn
# to show that git would run it. tests/run runs this as root and as an
# unprivileged user. The helper without its mount layer protects nothing
# (sandbox status says so), so only the helper and bwrap are tried.

load common
load exec_helpers
load git_helpers

setup_file() { probe_machine; }
setup() { common_setup; git_setup; }
# the plants leave read-only folders behind; a failed test, processes
teardown() {
	local p
	chmod -R u+w "$T" 2>/dev/null || true
	for p in $(pgrep -f "$T/(racer|sleeper)-"); do
		kill -KILL "$p" 2>/dev/null || true
	done
}

# fsmon: a config line whose fsmonitor, run by any git status, leaves MARK
fsmon() {
	printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$MARK"
}

# hook FILE: an executable hook that leaves MARK
hook() {
	printf '#!/bin/sh\ntouch %s\n' "$MARK" >"$1" && chmod +x "$1"
}

# commit DIR: the user's next commit there (runs the hooks)
commit() {
	echo $RANDOM >"$1/c"
	git -C "$1" add c
	git -C "$1" commit -q -m c >/dev/null 2>&1 || true
}

# control DIR SCRIPT TRIGGER: the plant, run outside arcturn in DIR, is
# run by git (TRIGGER DIR leaves MARK); then MARK is gone again.
control() {
	(cd "$1" && sh -c "$2") || true
	"$3" "$1"
	[ -e "$MARK" ] || {
		echo "control: git did not run the plant outside arcturn" >&2
		return 1
	}
	rm -f "$MARK"
}

# git status in DIR, as the user's prompt runs it
status() {
	git -C "$1" status >/dev/null 2>&1 || true
}

# --- .git/commondir, with every NAME.arcturn-N taken in advance

PLANT_COMMONDIR='cp -r .git evil && rm -rf evil/hooks && cp ../fsmon evil/config
for k in $(seq 999); do : > .git/commondir.arcturn-$k; done
echo ../evil > .git/commondir'

t_numbered() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$T/ctl"
	control "$T/ctl" "$PLANT_COMMONDIR" status
	git_repo "$WS"
	run arcturn exec -- sh -c "$PLANT_COMMONDIR"
	echo "$output"
	assert_success
	assert_output --regexp "\.git/commondir: created during the run at a protected path that did not exist; moved aside to $WS/\.git/commondir\.arcturn-aside-[a-z2-7]{12}"
	[ ! -e .git/commondir ]
	judge "$WS"
}

@test "helper: .git/commondir is moved aside though every numbered name was taken" { t_numbered helper; }
@test "bwrap: .git/commondir is moved aside though every numbered name was taken" { t_numbered bwrap; }

# --- two of them in one folder (the sweep looks at both through one fd),
# the folder made read-only on the way out

PLANT_BOTH='cp -r .git evil && rm -rf evil/hooks && cp ../fsmon evil/config
cp ../fsmon .git/config.worktree
echo ../evil > .git/commondir
chmod 555 .git'

t_both() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$T/ctl"
	control "$T/ctl" "$PLANT_BOTH" status
	chmod 755 "$T/ctl/.git"
	git_repo "$WS"
	local mode
	mode=$(stat -c %a .git)
	run arcturn exec -- sh -c "$PLANT_BOTH; echo planted=\$?"
	echo "$output"
	assert_success
	assert_line planted=0
	assert_output --regexp "\.git/config\.worktree: created during the run at a protected path that did not exist; moved aside to $WS/\.git/config\.worktree\.arcturn-aside-[a-z2-7]{12}"
	[ ! -e .git/config.worktree ]
	[ ! -e .git/commondir ]
	assert_equal "$(ls .git | grep -c '^config\.worktree\.arcturn-aside-')" 1
	assert_equal "$(ls .git | grep -c '^commondir\.arcturn-aside-')" 1
	assert_equal "$(stat -c %a .git)" "$mode"
	judge "$WS"
}

@test "helper: .git/config.worktree and .git/commondir planted in one run are both moved aside" { t_both helper; }
@test "bwrap: .git/config.worktree and .git/commondir planted in one run are both moved aside" { t_both bwrap; }

# --- an include.path file planted in a .git made read-only

PLANT_INCLUDE='cp ../fsmon .git/extra.cfg; chmod 555 .git'

t_readonly_git() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$T/ctl"
	git -C "$T/ctl" config include.path extra.cfg
	control "$T/ctl" "$PLANT_INCLUDE" status
	chmod 755 "$T/ctl/.git"
	git_repo "$WS"
	git config include.path extra.cfg
	local mode
	mode=$(stat -c %a .git)
	run arcturn exec -- sh -c "$PLANT_INCLUDE; echo planted=\$?"
	echo "$output"
	assert_success
	assert_line planted=0
	assert_output --partial ".git/extra.cfg: created during the run at a protected path that did not exist; moved aside to"
	[ ! -e .git/extra.cfg ]
	assert_equal "$(stat -c %a .git)" "$mode"
	judge "$WS"
	# no search right left on .git at all: the same
	run arcturn exec -- sh -c "cp ../fsmon .git/extra.cfg; chmod 000 .git; echo planted=\$?"
	echo "$output"
	assert_success
	assert_line planted=0
	[ ! -e .git/extra.cfg ]
	assert_equal "$(stat -c %a .git)" "$mode"
	judge "$WS"
}

@test "helper: a file planted in a .git made read-only is moved aside" { t_readonly_git helper; }
@test "bwrap: a file planted in a .git made read-only is moved aside" { t_readonly_git bwrap; }

# --- core.hooksPath = tools/git-hooks, tools missing: a symlink to it

PLANT_SYMLINK='mkdir -p real/git-hooks && cp ../hook real/git-hooks/pre-commit && ln -s real tools'
# ... or a real folder, made read-only
PLANT_RODIR='mkdir -p tools/git-hooks && cp ../hook tools/git-hooks/pre-commit && chmod 555 tools'

t_hooks_parent() {
	use_backend "$1"
	local plant=$2
	hook "$T/hook"
	git_repo "$T/ctl"
	git -C "$T/ctl" config core.hooksPath tools/git-hooks
	control "$T/ctl" "$plant" commit
	git_repo "$WS"
	git config core.hooksPath tools/git-hooks
	run arcturn exec -- sh -c "$plant; echo planted=\$?"
	echo "$output"
	assert_success
	assert_line planted=0
	assert_output --partial "moved aside to $WS/tools"
	[ ! -e tools/git-hooks/pre-commit ]
	commit "$WS"
	[ ! -e "$MARK" ]
}

@test "helper: a symlink in place of core.hooksPath's missing parent is moved aside, not followed" { t_hooks_parent helper "$PLANT_SYMLINK"; }
@test "bwrap: a symlink in place of core.hooksPath's missing parent is moved aside, not followed" { t_hooks_parent bwrap "$PLANT_SYMLINK"; }
@test "helper: core.hooksPath planted under a read-only new parent is moved aside" { t_hooks_parent helper "$PLANT_RODIR"; }
@test "bwrap: core.hooksPath planted under a read-only new parent is moved aside" { t_hooks_parent bwrap "$PLANT_RODIR"; }

# --- a submodule's config (watched) changed, its admin folder read-only

PLANT_MODULE='cat ../fsmon >> .git/modules/lib/config; chmod 555 .git/modules/lib'

t_module_readonly() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$T/ctl"
	git_submodule "$T/ctl" lib
	control "$T/ctl" "$PLANT_MODULE" status
	git_repo "$WS"
	git -C "$WS" submodule add -q "file://$T/src-lib" lib >/dev/null 2>&1
	git -C "$WS" commit -q -m "add lib"
	local before mode
	before=$(cat .git/modules/lib/config)
	mode=$(stat -c %a .git/modules/lib)
	run arcturn exec -- sh -c "$PLANT_MODULE; echo planted=\$?"
	echo "$output"
	assert_success
	assert_line planted=0
	assert_output --partial ".git/modules/lib/config: a protected file changed during the run; put back as it was"
	assert_equal "$(cat .git/modules/lib/config)" "$before"
	assert_equal "$(stat -c %a .git/modules/lib)" "$mode"
	judge "$WS"
	judge "$WS/lib"
}

@test "helper: a submodule's config is put back though its folder was made read-only" { t_module_readonly helper; }
@test "bwrap: a submodule's config is put back though its folder was made read-only" { t_module_readonly bwrap; }

# --- a background child of the command writing on while arcturn sweeps

t_racer() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$WS"
	# its own name, so that pgrep finds it and nothing else
	printf 'while :; do echo ../evil > .git/commondir; done\n' >"$T/racer-$BATS_TEST_NUMBER.sh"
	run arcturn exec -- sh -c "cp -r .git evil && rm -rf evil/hooks && cp ../fsmon evil/config
		sh '$T/racer-$BATS_TEST_NUMBER.sh' </dev/null >/dev/null 2>&1 &
		until [ -e .git/commondir ]; do :; done; echo racing"
	echo "$output"
	assert_success
	assert_line racing
	# every process of the command was gone before the sweep began
	run pgrep -f "$T/racer-$BATS_TEST_NUMBER.sh"
	assert_failure
	[ ! -e .git/commondir ]
	judge "$WS"
}

@test "helper: a background child of the command cannot race the sweep" { t_racer helper; }
@test "bwrap: a background child of the command cannot race the sweep" { t_racer bwrap; }

# --- arcturn killed while the command runs: the command ends with it

t_killed() {
	use_backend "$1"
	git_repo "$WS"
	local tag=$T/sleeper-$BATS_TEST_NUMBER.sh pid k
	printf 'touch "$1"; sleep 600\n' >"$tag"
	"$ARCTURN_BIN" exec -- sh "$tag" "$WS/ready" 3>&- &
	pid=$!
	for k in $(seq 600); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -e "$WS/ready" ]
	run pgrep -f "$tag"
	assert_success
	kill -KILL "$pid"
	wait "$pid" || true
	# the kernel ends the namespace's processes once its init is gone
	for k in $(seq 200); do pgrep -f "$tag" >/dev/null || break; sleep 0.05; done
	run pgrep -f "$tag"
	assert_failure
}

@test "helper: in a repository, the command does not outlive a killed arcturn" { t_killed helper; }
@test "bwrap: in a repository, the command does not outlive a killed arcturn" { t_killed bwrap; }

# --- what cannot be moved aside holds the workspace until it is gone

t_held() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$WS"
	command -v strace >/dev/null || skip "strace is not installed"
	# The sweep's first rename (arcturn's own process, after the
	# command) fails with EIO, as a broken disk would make it.
	run strace -qq -o /dev/null -e trace=renameat2 \
	    -e inject=renameat2:error=EIO:when=1 \
	    "$ARCTURN_BIN" exec -- sh -c "$PLANT_COMMONDIR"
	echo "$output"
	assert_failure 125
	assert_output --regexp "arcturn: exec: $WS/\.git/commondir: created during the run at a protected path that did not exist; cannot move it aside \(.*\); run no git here before it is gone: exec refuses to run in this workspace until then \(.*/cache/unswept-[0-9a-f]{32}\)"
	run arcturn exec -- true
	assert_failure 125
	assert_output --partial "arcturn: exec: $WS/.git/commondir: an earlier run left this at a protected path and could not move it aside (git may run what it says): refusing to run here until it is gone; check it and remove it"
	# nor does a dry run (the helper's)
	if [ "$1" = helper ]; then
		run arcturn exec --dry-run -- true
		assert_failure 125
		assert_output --partial "arcturn: exec: $WS/.git/commondir: an earlier run left this at a protected path"
	fi
	# another workspace is not held
	git_repo "$T/other"
	run arcturn -C "$T/other" exec -- true
	assert_success
	rm .git/commondir
	run arcturn exec -- true
	assert_success
	assert_output ""
}

# a watched file that cannot be put back: held until the marker is removed
t_held_check() {
	use_backend "$1"
	fsmon >"$T/fsmon"
	git_repo "$WS"
	git_submodule "$WS" lib
	command -v strace >/dev/null || skip "strace is not installed"
	# putting it back (a write to a temp name, renamed over it: arcturn's
	# own process's first renameat) fails with EIO, as a broken disk
	# would make it
	run strace -qq -o /dev/null -e trace=renameat \
	    -e inject=renameat:error=EIO:when=1 \
	    "$ARCTURN_BIN" exec -- sh -c "cat ../fsmon >> .git/modules/lib/config"
	echo "$output"
	assert_failure 125
	assert_output --regexp "arcturn: exec: $WS/\.git/modules/lib/config: a protected file changed during the run; cannot put it back \(.*\); run no git here before it is gone"
	run arcturn exec -- true
	assert_failure 125
	assert_output --regexp "arcturn: exec: $WS/\.git/modules/lib/config: an earlier run changed this protected file and could not put it back: refusing to run here; check it, then remove .*/cache/unswept-[0-9a-f]{32}"
	rm "${output##* }"
	run arcturn exec -- true
	assert_success
}

@test "helper: a protected file that cannot be put back holds the workspace until the marker is removed" { t_held_check helper; }
@test "bwrap: a protected file that cannot be put back holds the workspace until the marker is removed" { t_held_check bwrap; }

@test "helper: a protected path that cannot be moved aside holds the workspace until it is gone" { t_held helper; }
@test "bwrap: a protected path that cannot be moved aside holds the workspace until it is gone" { t_held bwrap; }

# --- everyday use: git commit inside exec writes .git as it always has

t_commit_inside() {
	use_backend "$1"
	git_repo "$WS"
	run arcturn exec -- sh -c 'echo y > y && git add y && git commit -q -m y && echo committed'
	echo "$output"
	assert_success
	assert_output committed
	assert_equal "$(git log -1 --format=%s)" y
	run arcturn exec -- git status --short
	assert_success
	assert_output ""
}

@test "helper: git commit inside exec still works, and nothing is moved aside" { t_commit_inside helper; }
@test "bwrap: git commit inside exec still works, and nothing is moved aside" { t_commit_inside bwrap; }
