# The compatibility cases of compat.bats (load after common and
# exec_helpers): real clients and toolchains under arcturn exec, against
# servers on loopback that setup_file starts once (tests/compat/server.py):
# an HTTP server (static files: numbered data files, a simple index with a
# wheel, a packument with a tarball; git http-backend under /git/), a git
# daemon, and a unix socket in a folder outside every writable root.
#
# A case NAME is four functions: need_NAME skips when the toolchain is
# missing, fix_NAME puts its sources in the workspace, cmd_NAME prints the
# shell script that does the work (and checks what it got), res_NAME
# prints what the run left in the workspace (default: tree_sum). t_compat
# runs the script without arcturn once per file, for the reference, then
# under exec, or under exec --dry-run and apply, and compares.
#
# The workspace is one fixed path per file ($BATS_FILE_TMPDIR/ws, emptied
# before each test): builds that record their own path (rustc, go, gcc
# with make) give the same bytes inside and outside.

# The cmd_ scripts are single-quoted on purpose: the shell that runs them
# (inside the sandbox, or the direct run) expands them; status and output
# come from bats' run.
# shellcheck disable=SC2016,SC2154

bats_require_minimum_version 1.5.0

# wait_for FILE: until FILE exists (a server's port file, written by a
# rename once it listens); fails after 30 s.
wait_for() {
	local i
	for i in $(seq 600); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	echo "no $1 after 30 s" >&2
	return 1
}

# prefer /usr/bin's tool: root's rustup cargo needs root's own HOME
tool() {
	if [ -x "/usr/bin/$1" ]; then
		echo "/usr/bin/$1"
	else
		command -v "$1"
	fi
}

compat_setup_file() {
	local c www py
	c=$(cd "$BATS_FILE_TMPDIR" && pwd -P)
	export COMPAT_DIR COMPAT_STATE=$c TCLIENT=$ARCTURN_TOOLS/tclient
	COMPAT_DIR=$(cd "$BATS_TEST_DIRNAME/../compat" && pwd -P)
	www=$c/srv/www
	mkdir -p "$www/data" "$www/simple/tinypkg" "$www/files" \
	    "$www/tinypkg/-" "$c/srv/git" "$c/outside" "$c/ref" "$c/bin"
	for i in 0 1 2 3 4 5 6 7; do echo "data $i" >"$www/data/$i.txt"; done

	# a bare repository with two commits of fixed dates: the same hash
	# in every run
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
	    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid \
	    GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' \
	    GIT_COMMITTER_DATE='2020-01-01T00:00:00Z'
	git init -q -b main "$c/seed"
	echo one >"$c/seed/a"
	mkdir "$c/seed/sub"
	printf '#!/bin/sh\necho two\n' >"$c/seed/sub/run.sh"
	chmod +x "$c/seed/sub/run.sh"
	git -C "$c/seed" add -A
	git -C "$c/seed" commit -qm one
	echo three >"$c/seed/b"
	git -C "$c/seed" add b
	git -C "$c/seed" commit -qm two
	git clone -q --bare "$c/seed" "$c/srv/git/repo.git"
	touch "$c/srv/git/repo.git/git-daemon-export-ok"

	py=$COMPAT_DIR/server.py
	python3 "$py" http "$www" "$c/srv/git" "$c/http.port" $$ 3>&- \
	    >"$c/http.log" 2>&1 &
	echo $! >>"$c/pids"
	python3 "$py" gitd "$c/srv/git" "$c/gitd.port" $$ 3>&- \
	    >"$c/gitd.log" 2>&1 &
	echo $! >>"$c/pids"
	export OUTSIDE_SOCK=$c/outside/d.sock OUTSIDE_LOG=$c/outside/log
	python3 "$py" unix "$OUTSIDE_SOCK" "$OUTSIDE_LOG" "$c/unix.ready" $$ 3>&- \
	    >"$c/unix.log" 2>&1 &
	echo $! >>"$c/pids"

	# what the servers serve while they start: a wheel in a simple
	# index, an npm tarball
	local whl sum
	whl=$(python3 "$COMPAT_DIR/mkwheel.py" "$www/files")
	sum=$(sha256sum "$www/files/$whl" | cut -d' ' -f1)
	printf '<!DOCTYPE html>\n<a href="../../files/%s#sha256=%s">%s</a>\n' \
	    "$whl" "$sum" "$whl" >"$www/simple/tinypkg/index.html"
	sh "$COMPAT_DIR/npmpkg.sh" tarball "$www" "$c/npm"

	# the clients that are compiled: outside arcturn, once
	if command -v go >/dev/null; then
		(cd "$COMPAT_DIR" && GOCACHE=$c/gocache GOPATH=$c/gopath \
		    GO111MODULE=off go build -o "$c/bin/httpget" httpget.go) ||
			return 1
	fi
	if command -v javac >/dev/null; then
		javac -d "$c/java" "$COMPAT_DIR/HttpGet.java" || return 1
	fi

	wait_for "$c/http.port" && wait_for "$c/gitd.port" &&
	    wait_for "$c/unix.ready" || return 1
	export HTTP_PORT GIT_PORT
	HTTP_PORT=$(cat "$c/http.port")
	GIT_PORT=$(cat "$c/gitd.port")

	# the packument, now that the port is known
	sh "$COMPAT_DIR/npmpkg.sh" packument "$www" "$HTTP_PORT"
	# the servers answer
	curl -sSf "http://127.0.0.1:$HTTP_PORT/data/7.txt" | grep -qx 'data 7'
}

compat_teardown_file() {
	local p
	[ -e "$COMPAT_STATE/pids" ] || return 0
	while read -r p; do kill "$p" 2>/dev/null || true; done <"$COMPAT_STATE/pids"
	while read -r p; do wait "$p" 2>/dev/null || true; done <"$COMPAT_STATE/pids"
}

compat_setup() {
	common_setup
	WS=$COMPAT_STATE/ws
	rm -rf "$WS"
	mkdir -p "$WS"
	cd "$WS" || return 1
}

# tree_sum DIR [PATH]...: every entry beneath DIR but the PATHs (relative,
# ./x) and what is beneath them: path, type, mode, and the content hash
# or link target. No times, owners or inode numbers: a dry run that is
# applied gives the same listing as the direct run.
tree_sum() {
	local dir=$1 p prune=()
	shift
	for p in "$@"; do prune+=(-path "$p" -prune -o); done
	(cd "$dir" && find . "${prune[@]}" -printf '%p %y %m\n' | LC_ALL=C sort |
	    while read -r p y m; do
		case $y in
		f) echo "$p f $m $(sha256sum <"$p" | cut -c1-16)" ;;
		l) echo "$p l $(readlink "$p")" ;;
		*) echo "$p $y $m" ;;
		esac
	done)
}

# What every case's script runs with: every cache in the temp dir (exec
# lets a command write the workspace, the temp dir and ~/.arcturn only).
COMPAT_ENV='export GOCACHE="$TMPDIR/go-cache" GOPATH="$TMPDIR/go" \
	GOPROXY=off CARGO_HOME="$TMPDIR/cargo" \
	CARGO_INCREMENTAL=0 npm_config_cache="$TMPDIR/npm" \
	npm_config_update_notifier=false npm_config_audit=false \
	npm_config_fund=false PIP_NO_CACHE_DIR=1 \
	PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
set -e
'

# reference NAME: the case's result without arcturn, computed once per
# file in the same workspace path, with a temp dir of its own; the
# workspace is emptied after.
reference() {
	local ref=$COMPAT_STATE/ref/$1
	if [ ! -e "$ref" ]; then
		"fix_$1"
		mkdir -p "$T/direct-tmp"
		run env TMPDIR="$T/direct-tmp" sh -c "$COMPAT_ENV$("cmd_$1")"
		if [ "$status" -ne 0 ]; then
			echo "$output" >&2
			echo "$1 fails without arcturn too (exit $status): the client or the fixture is broken" >&2
			return 1
		fi
		result "$1" >"$ref.tmp" && mv "$ref.tmp" "$ref"
		rm -rf "$WS" "$T/direct-tmp"
		mkdir -p "$WS"
		cd "$WS" || return 1
	fi
	cat "$ref"
}

result() {
	if declare -F "res_$1" >/dev/null; then "res_$1"; else tree_sum "$WS"; fi
}

# dry_run_available: skip, saying why, when this backend has no dry run.
dry_run_available() {
	local why
	why=$("$ARCTURN_BIN" sandbox status | sed -n 's/^dry-run exec: unavailable (\(.*\))$/\1/p')
	[ -z "$why" ] || skip "exec --dry-run unavailable on $ARCTURN_BACKEND: $why"
}

# t_compat NAME BACKEND exec|dry-run
t_compat() {
	local name=$1 mode=$3 want before
	"need_$name"
	use_backend "$2"
	[ "$mode" = exec ] || dry_run_available
	reference "$name" >/dev/null || return 1
	want=$(cat "$COMPAT_STATE/ref/$name")
	cd "$WS" || return 1
	"fix_$name"
	if [ "$mode" = exec ]; then
		run "$ARCTURN_BIN" exec -- sh -c "$COMPAT_ENV$("cmd_$name")"
		echo "$output"
		assert_success
	else
		before=$(tree_sum "$WS")
		run "$ARCTURN_BIN" exec --dry-run -- sh -c "$COMPAT_ENV$("cmd_$name")"
		echo "$output"
		assert_success
		# nothing lands before apply
		assert_equal "$(tree_sum "$WS")" "$before"
		run "$ARCTURN_BIN" apply --yes
		echo "$output"
		assert_success
	fi
	assert_equal "$(result "$name")" "$want"
}

need() {	# TOOL...: skip unless every TOOL is installed
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || skip "$t is not installed"
	done
}

# -- threaded connects: C (pthreads) and Python threads, 16 threads and
# the main one, each on a connection of its own

need_c_threads() { :; }	# built by make tests, like nosys
fix_c_threads() { :; }
cmd_c_threads() {
	echo '"$TCLIENT" tcp 127.0.0.1 "$HTTP_PORT" 16 >out.txt ||
	    { cat out.txt; exit 1; }
	grep -qx "t15 ok data 7" out.txt'
}

need_py_threads() { need python3; }
fix_py_threads() { :; }
cmd_py_threads() {
	echo 'python3 "$COMPAT_DIR/tclient.py" tcp 127.0.0.1 "$HTTP_PORT" 16 >out.txt ||
	    { cat out.txt; exit 1; }
	grep -qx "t15 ok data 7" out.txt'
}

# -- curl, by name and by address

need_curl_localhost() { need curl; }
fix_curl_localhost() { :; }
cmd_curl_localhost() {
	echo 'curl -sSf -o a.txt "http://localhost:$HTTP_PORT/data/1.txt" \
	    -o b.txt "http://localhost:$HTTP_PORT/data/2.txt"
	grep -qx "data 2" b.txt'
}

need_curl_ip() { need curl; }
fix_curl_ip() { :; }
cmd_curl_ip() {
	echo 'curl -sSf -o a.txt "http://127.0.0.1:$HTTP_PORT/data/1.txt" \
	    -o b.txt "http://127.0.0.1:$HTTP_PORT/data/2.txt"
	grep -qx "data 2" b.txt'
}

# -- HTTP clients of language runtimes, many requests at once

need_go_http() { need go; }
fix_go_http() { :; }
cmd_go_http() {
	echo '"$COMPAT_STATE/bin/httpget" "http://127.0.0.1:$HTTP_PORT" 32 >out.txt ||
	    { cat out.txt; exit 1; }
	grep -qx "31 200 data 7" out.txt'
}

# no hsperfdata in /tmp: java writes it there whatever TMPDIR says
need_java_http() { need java javac; }
fix_java_http() { :; }
cmd_java_http() {
	echo 'java -XX:-UsePerfData -cp "$COMPAT_STATE/java" HttpGet \
	    "http://127.0.0.1:$HTTP_PORT" 16 >out.txt ||
	    { cat out.txt; exit 1; }
	grep -qx "15 200 data 7" out.txt'
}

need_node_fetch() { need node; }
fix_node_fetch() { :; }
cmd_node_fetch() {
	echo 'node "$COMPAT_DIR/fetch.mjs" "http://127.0.0.1:$HTTP_PORT" 16 >out.txt ||
	    { cat out.txt; exit 1; }
	grep -qx "15 200 data 7" out.txt'
}

# -- git clone over git:// and over smart HTTP: the work tree, and the
# repository as git reads it (the index and the logs hold times)

need_git_daemon() { need git; }
fix_git_daemon() { :; }
cmd_git_daemon() {
	echo 'git clone -q "git://127.0.0.1:$GIT_PORT/repo.git" repo
	test "$(repo/sub/run.sh)" = two'
}
res_git_daemon() {
	tree_sum "$WS" ./repo/.git
	git -C "$WS/repo" log --format='%H %s' HEAD
	git -C "$WS/repo" for-each-ref --format='%(refname) %(objectname)'
	git -C "$WS/repo" status --porcelain
	git -C "$WS/repo" fsck --no-progress 2>&1
}

need_git_http() { need git; }
fix_git_http() { :; }
cmd_git_http() {
	echo 'git clone -q "http://127.0.0.1:$HTTP_PORT/git/repo.git" repo
	test "$(repo/sub/run.sh)" = two'
}
res_git_http() { res_git_daemon; }

# -- package managers from local registries

need_pip() {
	need python3
	python3 -m pip --version >/dev/null 2>&1 || skip "pip is not installed for python3"
}
fix_pip() { :; }
cmd_pip() {
	echo 'python3 -m pip install -q --root-user-action=ignore --no-compile \
	    --index-url "http://127.0.0.1:$HTTP_PORT/simple" --target site tinypkg
	test "$(PYTHONPATH=site python3 -c "import tinypkg; print(tinypkg.GREETING)")" = "hello from tinypkg"'
}

need_npm() { need node npm; }
fix_npm() {
	printf '{"name": "app", "version": "1.0.0", "private": true,\n "dependencies": {"tinypkg": "^1.0.0"}}\n' \
	    >"$WS/package.json"
}
cmd_npm() {
	echo 'npm install --registry "http://127.0.0.1:$HTTP_PORT/" --loglevel=error
	test "$(node -p "require(\"tinypkg\")")" = "hello from tinypkg"'
}

# cargo: a dependency vendored as a directory source that replaces the
# default registry. target/ holds fingerprints and times: the binary and
# the lock file are what is compared of it.
need_cargo() {
	[ -n "$(tool cargo)" ] || skip "cargo is not installed"
	[ -n "$(tool rustc)" ] || skip "rustc is not installed"
}
fix_cargo() {
	mkdir -p "$WS/src" "$WS/vendor/tinydep/src" "$WS/.cargo"
	printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ntinydep = "0.1"\n' \
	    >"$WS/Cargo.toml"
	printf 'fn main() {\n    println!("{}", tinydep::greeting());\n}\n' >"$WS/src/main.rs"
	printf '[package]\nname = "tinydep"\nversion = "0.1.0"\nedition = "2021"\n' \
	    >"$WS/vendor/tinydep/Cargo.toml"
	printf 'pub fn greeting() -> &%sstatic str {\n    "hello from tinydep"\n}\n' "'" \
	    >"$WS/vendor/tinydep/src/lib.rs"
	printf '{"files": {}, "package": null}\n' >"$WS/vendor/tinydep/.cargo-checksum.json"
	printf '[source.crates-io]\nreplace-with = "vendored"\n\n[source.vendored]\ndirectory = "vendor"\n' \
	    >"$WS/.cargo/config.toml"
}
cmd_cargo() {
	echo "RUSTC=$(tool rustc) $(tool cargo) build --offline -q"'
	test "$(target/debug/app)" = "hello from tinydep"'
}
res_cargo() {
	tree_sum "$WS" ./target
	sha256sum "$WS/target/debug/app"
}

# go build and go test in a module of their own (the test writes a file)
need_go_build() { need go; }
fix_go_build() {
	printf 'module example.invalid/hello\n\ngo 1.19\n' >"$WS/go.mod"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(Greeting()) }\n\nfunc Greeting() string { return "hello from go" }\n' \
	    >"$WS/main.go"
	printf 'package main\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestGreeting(t *testing.T) {\n\tif err := os.WriteFile("test.out", []byte(Greeting()+"\\n"), 0o644); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n' \
	    >"$WS/main_test.go"
}
cmd_go_build() {
	echo 'go build -o hello .
	test "$(./hello)" = "hello from go"'
}

need_go_test() { need go; }
fix_go_test() { fix_go_build; }
cmd_go_test() {
	echo 'go test -count=1 ./... >/dev/null
	grep -qx "hello from go" test.out'
}

# make and gcc: two objects, a program, its output
need_make_gcc() { need make gcc; }
fix_make_gcc() {
	printf '#include <stdio.h>\n\nconst char *greeting(void);\n\nint\nmain(void)\n{\n\tputs(greeting());\n\treturn 0;\n}\n' \
	    >"$WS/main.c"
	printf 'const char *\ngreeting(void)\n{\n\treturn "hello from make";\n}\n' >"$WS/greet.c"
	printf 'prog: main.o greet.o\n\t$(CC) -o $@ main.o greet.o\n\nclean:\n\trm -f prog *.o\n' \
	    >"$WS/Makefile"
}
cmd_make_gcc() {
	echo 'make -s CC=gcc
	./prog >out.txt
	grep -qx "hello from make" out.txt'
}

# -- refusals: the same threaded clients against the outside unix socket

# t_unix_refused BACKEND CLIENT...: without arcturn CLIENT reaches the
# socket from every thread (the control: the client works); under exec
# every connect, the main thread's and each thread's, is refused alike
# (EACCES), and the server hears nothing.
t_unix_refused() {
	local backend=$1 before
	shift
	use_backend "$backend"
	run "$@" unix "$OUTSIDE_SOCK" 8
	echo "$output"
	assert_success
	assert_line "main ok ok"
	assert_line "t7 ok ok"
	before=$(cat "$OUTSIDE_LOG")
	run "$ARCTURN_BIN" exec -- "$@" unix "$OUTSIDE_SOCK" 8
	echo "$output"
	assert_failure
	assert_line --regexp '^main error 13 '
	assert_equal "$(grep -c '^main error 13 \|^t[0-7] error 13 ' <<<"$output")" 9
	assert_equal "$(cat "$OUTSIDE_LOG")" "$before"
}
