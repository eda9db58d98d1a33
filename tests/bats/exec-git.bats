#!/usr/bin/env bats
# Everyday git inside arcturn exec keeps working while git's control
# files are protected, on every backend this machine runs (the helper
# with its mount layer, the helper with Landlock only, bwrap): init,
# add, commit, branch, checkout, rebase, stash, tag, gc, worktree add,
# submodule update; a linked worktree whose common dir is elsewhere; and
# what fails on purpose (git config), with the way to allow it. Each
# result is read from outside, with git.

load common
load exec_helpers
load git_helpers

setup_file() { probe_machine; }
setup() { common_setup; git_setup; }

# t_everyday BACKEND
t_everyday() {
	use_backend "$1"
	git_repo "$WS"
	run arcturn exec -- sh -exc '
		git init -q sub
		(cd sub && echo s > s && git add s && git commit -q -m s)
		echo b > b && git add b && git commit -q -m two
		git branch feat && git checkout -q feat
		echo c > c && git add c && git commit -q -m three
		git checkout -q main
		echo d > d && git add d && git commit -q -m four
		git checkout -q feat && git rebase -q main
		echo more >> a && git stash -q && git stash pop -q
		git commit -q -am five
		git tag v1 && git tag -a v2 -m v2
		git gc -q
		git worktree add -q wt main
		(cd wt && echo w > w && git add w && git commit -q -m six)
		echo done'
	echo "$output"
	assert_success
	assert_line done
	# read back from outside
	assert_equal "$(git -C "$WS" log --format=%s feat)" "$(printf 'five\nthree\nfour\ntwo\none')"
	assert_equal "$(git -C "$WS" log -1 --format=%s main)" six
	assert_equal "$(git -C "$WS" tag | tr '\n' ' ')" "v1 v2 "
	assert_equal "$(git -C "$WS/sub" log --format=%s)" s
	assert_equal "$(git -C "$WS" worktree list | wc -l)" 2
	git -C "$WS" fsck --no-progress 2>&1 | { ! grep -qi error; }
	[ -z "$(git -C "$WS" stash list)" ]
}

@test "helper: everyday git works in the workspace" { t_everyday helper; }
@test "helper-landlock: everyday git works in the workspace" { t_everyday helper-landlock; }
@test "bwrap: everyday git works in the workspace" { t_everyday bwrap; }

# t_submodule_update BACKEND: a submodule not cloned yet, then one that
# is (git rewrites its config each time: it must come out unchanged)
t_submodule_update() {
	use_backend "$1"
	local super=$T/super cfg head
	git_repo "$super"
	git_submodule "$super" lib
	echo two >>"$T/src-lib/a"
	git -C "$T/src-lib" commit -q -am two
	git -C "$super/lib" pull -q
	git -C "$super" commit -q -am "lib two"
	cd "$T" && rmdir "$WS"
	git clone -q "$super" "$WS"
	cd "$WS"
	git submodule init -q
	run arcturn exec -- git submodule update
	echo "$output"
	assert_success
	head=$(git -C "$WS" ls-tree HEAD lib | cut -d' ' -f3 | cut -f1)
	assert_equal "$(git -C "$WS/lib" rev-parse HEAD)" "$head"
	# cloned: now the module's config exists and git rewrites it
	git -C "$WS/lib" checkout -q HEAD~1
	cfg=$(cat "$WS/.git/modules/lib/config")
	run arcturn exec -- git submodule update
	echo "$output"
	assert_success
	assert_equal "$(git -C "$WS/lib" rev-parse HEAD)" "$head"
	assert_equal "$(cat "$WS/.git/modules/lib/config")" "$cfg"
	refute_output --partial "put back"
}

@test "helper: git submodule update works" { t_submodule_update helper; }
@test "helper-landlock: git submodule update works" { t_submodule_update helper-landlock; }
@test "bwrap: git submodule update works" { t_submodule_update bwrap; }

# t_linked_worktree BACKEND: the workspace is a linked worktree of a
# repository outside every root: commits land without a grant, while the
# common dir's config and hooks stay as they were
t_linked_worktree() {
	use_backend "$1"
	local main=$T/main cfg
	git_repo "$main"
	git -C "$main" worktree add -q "$T/lwt" -b lwt
	cfg=$(cat "$main/.git/config")
	cd "$T/lwt"
	run arcturn exec -- sh -c '
		echo x > x && git add x && git commit -q -m in-lwt && echo commit=ok
		git checkout -q -b lwt2 && echo branch=ok
		git tag in-lwt && echo tag=ok
		echo y >> x && git stash -q && git stash pop -q && echo stash=ok
		git config sneaky.key 1; echo config=$?
		echo "#!/bin/sh" > "$(git rev-parse --git-common-dir)/hooks/post-commit"; echo hook=$?'
	echo "$output"
	assert_line commit=ok
	assert_line branch=ok
	assert_line tag=ok
	assert_line stash=ok
	refute_line config=0
	refute_line hook=0
	assert_equal "$(git -C "$main" log -1 --format=%s lwt2)" in-lwt
	git -C "$main" rev-parse -q --verify refs/tags/in-lwt
	assert_equal "$(cat "$main/.git/config")" "$cfg"
	[ ! -e "$main/.git/hooks/post-commit" ]
}

@test "helper: a linked worktree of a repository elsewhere works without a grant" { t_linked_worktree helper; }
@test "helper-landlock: a linked worktree of a repository elsewhere works without a grant" { t_linked_worktree helper-landlock; }
@test "bwrap: a linked worktree of a repository elsewhere works without a grant" { t_linked_worktree bwrap; }

# t_config_refused BACKEND: git config and git remote add fail (the
# config is read-only), and a user config that protects less allows them
t_config_refused() {
	use_backend "$1"
	git_repo "$WS"
	local cfg
	cfg=$(cat .git/config)
	run arcturn exec -- sh -c 'git config user.name x; echo config=$?; git remote add o /tmp; echo remote=$?'
	echo "$output"
	refute_line config=0
	refute_line remote=0
	assert_equal "$(cat .git/config)" "$cfg"
	# README: take .git/config out of the list in the user config
	mkdir -p "$HOME/.config/arcturn"
	echo '{"protect": [".git/hooks"]}' >"$HOME/.config/arcturn/config.json"
	run arcturn exec -- sh -c 'git config user.name x && git remote add o /tmp && echo allowed'
	echo "$output"
	assert_line allowed
	assert_equal "$(git -C "$WS" config remote.o.url)" /tmp
	# a workspace config cannot take it back out: it only adds
	echo '{"protect": []}' >"$HOME/.config/arcturn/config.json"
	echo '{"protect": [".git/config"]}' >.arcturn.json
	run arcturn exec -- sh -c 'git config user.name y; echo config=$?'
	refute_line config=0
}

@test "helper: git config fails, and a narrower protect allows it" { t_config_refused helper; }
@test "bwrap: git config fails, and a narrower protect allows it" { t_config_refused bwrap; }

@test "helper-landlock: sandbox status says git's control files are not protected" {
	use_backend helper-landlock
	run status_json_get 'j["guarantees"]["git_control_files"]["holds"], j["guarantees"]["protected_missing"]["holds"], j["guarantees"]["state_dir"]["holds"]'
	assert_output "False False False"
}
