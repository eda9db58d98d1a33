#!/usr/bin/env bats
# arcturn exec --dry-run: every write of any command lands in the session;
# the real workspace never changes until apply.

load common

setup() {
	common_setup
	if ! "$ARCTURN_BIN" sandbox status --json | grep -q '"dry_run_exec":true'; then
		skip "exec --dry-run unavailable here: $("$ARCTURN_BIN" sandbox status | grep dry-run)"
	fi
}

# A full listing of a tree: type, mode, size, link target or content hash.
listing() {
	(cd "$1" && find . -path ./.git -prune -o -printf '%p %y %m\n' | sort | while read -r p y m; do
		case $y in
		f) echo "$p f $m $(sha256sum <"$p" | cut -c1-16)" ;;
		l) echo "$p l $(readlink "$p")" ;;
		*) echo "$p $y $m" ;;
		esac
	done)
}

# path and status of every pending change, one per line
changes() {
	arcturn --json diff | python3 -c '
import json, sys
for f in json.load(sys.stdin)["files"]:
    print(f["path"], f["status"])'
}

fixture() {
	echo a >a; echo b >b; echo f >f; echo g >g; mkdir e
	mkdir -p tree/sub; echo x >tree/sub/x; echo t >tree/t
}

SCRIPT='rm a; mv b c; mkdir d; rmdir e; chmod +x f; ln -s x y; : >> g; echo new > h; rm -r tree'

@test "the real workspace stays byte-identical and the change list is exact" {
	fixture
	before=$(listing "$WS")
	run arcturn exec --dry-run -- sh -c "$SCRIPT"
	assert_success
	assert_equal "$(listing "$WS")" "$before"
	run changes
	assert_success
	assert_output "$(printf '%s\n' \
		'a deleted' 'b deleted' 'c added' 'd dir-added' 'e dir-deleted' \
		'f mode' 'h added' 'tree dir-deleted' 'tree/sub dir-deleted' \
		'tree/sub/x deleted' 'tree/t deleted' 'y added')"
}

@test "apply makes the workspace what the command saw" {
	fixture
	cp -a "$WS" "$T/plain"
	(cd "$T/plain" && sh -c "$SCRIPT")
	run arcturn exec --dry-run -- sh -c "$SCRIPT"
	assert_success
	run arcturn apply --yes
	assert_success
	assert_equal "$(listing "$WS")" "$(listing "$T/plain")"
	run arcturn --json diff
	assert_output --partial '"count":0'
}

@test "the command sees the workspace with the pending changes on top" {
	echo real >f
	echo shadow | arcturn write --dry-run f
	run arcturn exec --dry-run -- cat f
	assert_success
	assert_output shadow
	run arcturn exec --dry-run -- sh -c 'echo from-exec > g; cat f'
	assert_output shadow
	run arcturn read --dry-run g
	assert_output from-exec
	[ ! -e g ]
	assert_equal "$(cat f)" real
}

@test "a file written by exec --dry-run is what write/edit build on" {
	echo one >f
	run arcturn exec --dry-run -- sh -c 'echo two > f'
	assert_success
	run arcturn edit --dry-run f --old two --new three
	assert_success
	run arcturn read --dry-run f
	assert_output three
	assert_equal "$(cat f)" one
}

@test "the command's exit status passes through" {
	run -7 arcturn exec --dry-run -- sh -c 'echo x > f; exit 7'
	run -143 arcturn exec --dry-run -- sh -c 'kill -TERM $$'
	run -127 arcturn exec --dry-run -- /nonexistent/cmd
}

@test "a dry-run git commit then apply gives a repository git fsck accepts" {
	git init -q .
	echo one >f
	git -c user.name=t -c user.email=t@t add f
	git -c user.name=t -c user.email=t@t commit -qm one
	head=$(git rev-parse HEAD)
	run arcturn exec --dry-run -- sh -c 'echo two > f && git -c user.name=t -c user.email=t@t commit -qam two'
	assert_success
	assert_equal "$(git rev-parse HEAD)" "$head"
	run arcturn apply --yes
	assert_success
	run git fsck --strict
	assert_success
	assert_equal "$(git log --format=%s -1)" two
	assert_equal "$(cat f)" two
}

@test "a dry-run make build then discard leaves no trace" {
	printf 'int main(void){return 0;}\n' >m.c
	printf 'm: m.c\n\tcc -o m m.c\n' >Makefile
	before=$(listing "$WS")
	run arcturn exec --dry-run -- make
	assert_success
	run changes
	assert_line 'm added'
	run arcturn discard --yes
	assert_success
	assert_equal "$(listing "$WS")" "$before"
	run arcturn session list
	refute_output --partial "$WS"
}

@test "apply refuses a file whose real content changed after the command ended" {
	echo base >f
	echo other >o
	run arcturn exec --dry-run -- sh -c 'echo mine > f; echo mine > o'
	assert_success
	echo theirs >f
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: changed since capture; refused'
	assert_output --partial 'Applied 1, failed 1. Pending changes kept.'
	assert_equal "$(cat f)" theirs
	assert_equal "$(cat o)" mine
}

@test "a symlink out of the workspace replaced by a directory: captured, applied, nothing written outside" {
	echo keep >"$OUT/x"
	ln -s "$OUT" link
	run arcturn exec --dry-run -- sh -c 'rm link && mkdir link && echo hi > link/x'
	assert_success
	run changes
	assert_output "link deleted
link dir-added
link/x added"
	# the real link and what it leads to are untouched until apply
	assert_equal "$(readlink link)" "$OUT"
	assert_equal "$(cat "$OUT/x")" keep
	run arcturn apply --yes
	assert_success
	[ -d link ]
	[ ! -L link ]
	assert_equal "$(cat link/x)" hi
	assert_equal "$(cat "$OUT/x")" keep
	assert_equal "$(ls "$OUT")" x
}

@test "fail closed: no user namespaces -> 125, command not run" {
	run "$ARCTURN_TOOLS/nosys" -u -- "$ARCTURN_BIN" exec --dry-run -- sh -c "touch '$T/ran'"
	assert_failure 125
	assert_output --partial 'exec --dry-run'
	[ ! -e "$T/ran" ]
}

@test "fail closed: no Landlock -> 125, command not run" {
	run "$ARCTURN_TOOLS/nosys" -l -- "$ARCTURN_BIN" exec --dry-run -- sh -c "touch '$T/ran'"
	assert_failure 125
	[ ! -e "$T/ran" ]
}

@test "fail closed: state dir inside the workspace -> 125, command not run" {
	ARCTURN_HOME=$WS/.state run arcturn exec --dry-run -- sh -c "touch '$T/ran'"
	assert_failure 125
	assert_output --partial "holds arcturn's state dir"
	[ ! -e "$T/ran" ]
}

@test "exec --dry-run in the home folder says to give a project with -C" {
	mkdir "$HOME/project"
	cd "$HOME"
	run arcturn exec --dry-run -- sh -c "touch '$T/ran'"
	assert_failure 125
	assert_output --partial "the workspace $HOME holds"
	assert_output --partial '-C PROJECT'
	[ ! -e "$T/ran" ]
	# the way on it names works
	run arcturn -C project exec --dry-run -- sh -c 'echo x > ran'
	assert_success
	[ ! -e "$HOME/project/ran" ]
}

@test "no user namespaces: the messages name them and the way on, not the errno" {
	local flag
	git init -q "$WS"	# protected paths: exec's fallback has a note
	for flag in -u -s; do
		run "$ARCTURN_TOOLS/nosys" "$flag" -- "$ARCTURN_BIN" exec --dry-run -- true
		assert_failure 125
		assert_output --partial 'user namespaces'
		refute_output --partial 'No space left on device'
		run "$ARCTURN_TOOLS/nosys" "$flag" -- "$ARCTURN_BIN" sandbox status
		assert_line --regexp '^  why: .*no mount layer, Landlock only: .*user namespaces'
		assert_line --regexp '^user_namespaces: unusable: .*user namespaces'
		assert_line --regexp '^nested_namespaces: none: '
		refute_output --partial 'No space left on device'
		# exec falls back to Landlock alone, and says why
		ARCTURN_BACKEND=helper run "$ARCTURN_TOOLS/nosys" "$flag" -- "$ARCTURN_BIN" exec -- true
		assert_success
		assert_output --regexp 'note: no mount layer: .*user namespaces'
	done
	# ENOSPC: what the kernel says where user.max_user_namespaces is 0
	run "$ARCTURN_TOOLS/nosys" -s -- "$ARCTURN_BIN" exec --dry-run -- true
	assert_output --partial 'sysctl -w user.max_user_namespaces='
}

@test "fail closed: a backend without the mount layer -> 125, command not run" {
	for b in bwrap helper-landlock none; do
		ARCTURN_BACKEND=$b run arcturn exec --dry-run -- sh -c "touch '$T/ran'"
		assert_failure 125
		[ ! -e "$T/ran" ]
	done
}

@test "sandbox status says whether dry-run exec is available" {
	run arcturn sandbox status
	assert_line --partial 'dry-run exec: available'
	run "$ARCTURN_TOOLS/nosys" -u -- "$ARCTURN_BIN" sandbox status
	assert_line --partial 'dry-run exec: unavailable'
}

@test "the session cannot be written around the overlay" {
	run arcturn exec --dry-run -- sh -c "{ echo evil > \$HOME/.arcturn/overlays/x; } 2>/dev/null || echo refused; echo y > f"
	assert_success
	assert_output refused
	[ ! -e "$HOME/.arcturn/overlays/x" ]
}

@test "arcturn inside an exec --dry-run fails at once instead of waiting for the session" {
	run timeout 30 "$ARCTURN_BIN" exec --dry-run -- "$ARCTURN_BIN" diff
	assert_failure 2
	assert_output --partial 'held by the exec --dry-run'
	run timeout 30 "$ARCTURN_BIN" exec --dry-run -- sh -c "echo x | '$ARCTURN_BIN' write --dry-run f"
	assert_failure 2
}

# The workspace's session dir (after a first dry-run command made it).
sesdir() {
	local id
	id=$(arcturn --json session show | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || return 1
	echo "$HOME/.arcturn/overlays/$id"
}

# Wait (up to 10 s) until a file shows in some session's upper dir.
wait_upper() {
	local i
	for i in $(seq 200); do
		compgen -G "$HOME/.arcturn/overlays/*/upper/$1" >/dev/null && return 0
		sleep 0.05
	done
	echo "no $1 in the session after 10 s" >&2
	return 1
}

@test "each run leaves the session ready for the next" {
	for i in 1 2 3; do
		run arcturn exec --dry-run -- sh -c "echo $i >> f"
		assert_success
	done
	d=$(sesdir)
	# the mark is parked between runs, and the last run's work dir swept
	[ ! -e "$d/running" ]
	[ -L "$d/idle" ]
	[ ! -e "$d/work.old" ]
	[ ! -e "$d/interrupted" ]
	ARCTURN_DRY_RUN=1 run arcturn read f
	assert_output "$(printf '1\n2\n3')"
	[ ! -e f ]
}

@test "SIGTERM to arcturn reaches the command; what it wrote is kept and recorded" {
	echo base >f
	# not the arcturn function: $! must be arcturn itself
	# (the loop ends by itself after 10 s should the signal never come)
	"$ARCTURN_BIN" exec --dry-run -- sh -c 'trap "echo term > t; exit 3" TERM; echo mine > f; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done' 3>&- &
	pid=$!
	wait_upper f
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 3
	run changes
	assert_output "$(printf 'f modified\nt added')"
	# recorded when the command ended: a later real change is a conflict
	echo theirs >f
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: changed since capture; refused'
	assert_equal "$(cat f)" theirs
}

@test "arcturn killed mid-run: the next run settles the session" {
	echo base >f
	"$ARCTURN_BIN" exec --dry-run -- sh -c 'echo mine > f; exec sleep 30' 3>&- &
	pid=$!
	wait_upper f
	child=$(pgrep -P "$pid")
	[ -n "$child" ]
	kill -KILL "$pid"
	wait "$pid" || true
	kill -KILL "$child"
	d=$(sesdir)
	[ -L "$d/running" ]
	# the same boot: the page cache holds it all; no restart warning
	run arcturn diff --stat
	refute_output --partial 'restart'
	run arcturn exec --dry-run -- true
	assert_success
	refute_output --partial 'restart'
	# what the killed run changed was never recorded: the settling run
	# says so, and never takes the real file now as what it was made on
	assert_output --partial "1 change(s) of an earlier run that never ended have no record"
	[ ! -e "$d/running" ]
	[ ! -e "$d/interrupted" ]
	run changes
	assert_output 'f modified'
	run arcturn session show
	assert_line --partial "  M f  (no record of the file at capture; refused)"
	# refused at apply whatever the real file holds: never applied blind
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: no record of the file at capture; refused'
	echo theirs >f
	run arcturn apply --yes
	assert_failure 1
	assert_output --partial 'f: no record of the file at capture; refused'
	assert_equal "$(cat f)" theirs
}

@test "a run a restart cut short is reported until the session goes" {
	run arcturn exec --dry-run -- sh -c 'echo mine > f'
	assert_success
	d=$(sesdir)
	# what a restart leaves: the mark of a run that never ended, naming
	# another boot
	rm "$d/idle"
	ln -s another-boot "$d/running"
	run arcturn diff --stat
	assert_success
	assert_output --partial 'a restart cut a dry-run command in it short'
	run arcturn --json session show
	assert_output --partial '"interrupted":true'
	run arcturn exec --dry-run -- true
	assert_success
	assert_output --partial 'a restart cut a dry-run command in it short'
	[ -L "$d/interrupted" ]
	[ ! -e "$d/running" ]
	run arcturn diff --stat
	assert_output --partial 'a restart cut'
	run arcturn discard --yes
	assert_success
	[ ! -e "$d" ]
}

@test "no memfd: the dry run starts the helper from the verified cache file" {
	run "$ARCTURN_TOOLS/nosys" -m -- "$ARCTURN_BIN" exec --dry-run -- sh -c 'echo viacache > vc'
	assert_success
	[ ! -e vc ]
	run changes
	assert_output 'vc added'
	compgen -G "$HOME/.arcturn/cache/landlock-helper-*" >/dev/null
}

@test "no memfd and an unwritable cache: 125 with one line, the command never ran" {
	is_root && skip "root writes through directory modes"
	mkdir -p "$HOME/.arcturn/cache"
	chmod 500 "$HOME/.arcturn/cache"
	run "$ARCTURN_TOOLS/nosys" -m -- "$ARCTURN_BIN" exec --dry-run -- sh -c "touch '$T/ran'"
	chmod 700 "$HOME/.arcturn/cache"
	assert_failure 125
	assert_output --partial 'helper cache'
	assert_equal "${#lines[@]}" 1
	[ ! -e "$T/ran" ]
}

# A file saved right before the run, in the same tick of the file
# system's coarse clock as the run's start, is the base, not a change of
# the run's: the command starts on a later tick. The previous code took
# it for one and refused it ("it changed while the command ran") in 30 of
# 40 tries here; twenty in a row must all land.
@test "a file saved just before exec --dry-run is its base, not a change the run made" {
	local k
	for k in $(seq 20); do
		rm -rf build conf
		mkdir build
		echo v1 >conf
		run arcturn exec --checkpoint -- sh -c 'rm -r build; sed -i s/v1/v2/ conf'
		[ "$status" -eq 0 ] || { echo "try $k: $output"; false; }
		[ "$(cat conf)" = v2 ]
		[ ! -e build ]
	done
}

@test "a dry run right after one that read a whole tree mounts its overlay: the last one's init holds the session until its overlay is gone" {
	mkdir -p many
	for d in 0 1 2 3 4 5 6 7 8 9; do
		mkdir many/$d
		for f in 0 1 2 3 4 5 6 7 8 9; do echo "$d$f" >many/$d/$f; done
	done
	for round in 1 2 3 4 5 6 7 8; do
		run arcturn exec --dry-run -- sh -c 'cat many/*/* >/dev/null; echo r >read'
		assert_success
		run arcturn exec --dry-run -- sh -c "echo $round >next"
		assert_success
	done
	run changes
	assert_success
	assert_output "$(printf '%s\n' 'next added' 'read added')"
	run cat "$HOME/.arcturn/overlays/$(ls "$HOME/.arcturn/overlays" | head -n 1)/upper/next"
	assert_output 8
}
