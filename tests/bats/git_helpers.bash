# Helpers for exec-git.bats and policy.bats (load after common and
# exec_helpers): repositories to work in, and the user's next git run
# outside the sandbox as the judge of an escape.

bats_require_minimum_version 1.5.0

# git_setup: a git identity and the file:// transport for submodules, in
# the test's own $HOME (outside every writable root); MARK is where a
# hostile payload would leave its trace when git outside runs it.
git_setup() {
	command -v git >/dev/null || skip "git is not installed"
	git config --global user.name arcturn-test
	git config --global user.email test@arcturn.invalid
	git config --global init.defaultBranch main
	git config --global protocol.file.allow always
	git config --global advice.detachedHead false
	MARK=$OUT/PWNED
}

# git_repo DIR: a repository with one commit.
git_repo() {
	git init -q "$1"
	echo one >"$1/a"
	git -C "$1" add a
	git -C "$1" commit -q -m one
}

# git_submodule SUPER NAME: a source repository in $T/src-NAME, added to
# SUPER as the submodule NAME and committed.
git_submodule() {
	git_repo "$T/src-$2"
	git -C "$1" submodule add -q "file://$T/src-$2" "$2" >/dev/null 2>&1
	git -C "$1" commit -q -m "add $2"
}

# evil_config FILE: a git config whose fsmonitor, run by any `git status`,
# leaves MARK.
evil_config() {
	printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch %s; false"\n' \
	    "$MARK" >"$1"
}

# judge DIR: the user's next git commands in DIR, outside the sandbox;
# nothing the command planted may have run.
judge() {
	git -C "$1" status >/dev/null 2>&1 || true
	git -C "$1" diff >/dev/null 2>&1 || true
	[ ! -e "$MARK" ] || {
		echo "git outside the sandbox ran the planted payload" >&2
		return 1
	}
}
