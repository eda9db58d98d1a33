#!/usr/bin/env bats
# Real programs under arcturn exec (issue 23): threaded and networked
# clients and the common toolchains, against servers on loopback that
# setup_file starts (no internet), on every backend this machine runs,
# under exec and under exec --dry-run followed by apply; each result is
# compared with the same command run without arcturn. Next to them, the
# same threaded clients must still be refused an outside unix socket.
# The cases are in compat_helpers.bash; each line below runs one.

load common
load exec_helpers
load compat_helpers

setup_file() { probe_machine; compat_setup_file; }
teardown_file() { compat_teardown_file; }
setup() { compat_setup; }

# helper

@test "helper: C: 16 pthreads and the main thread connect to 127.0.0.1" { t_compat c_threads helper exec; }
@test "helper: Python: 16 threads and the main thread connect to 127.0.0.1" { t_compat py_threads helper exec; }
@test "helper: curl fetches from localhost" { t_compat curl_localhost helper exec; }
@test "helper: curl fetches from 127.0.0.1" { t_compat curl_ip helper exec; }
@test "helper: Go net/http: 32 goroutines fetch at once" { t_compat go_http helper exec; }
@test "helper: Java HttpClient: 16 requests at once" { t_compat java_http helper exec; }
@test "helper: Node fetch: 16 requests at once" { t_compat node_fetch helper exec; }
@test "helper: git clone over git:// (git daemon)" { t_compat git_daemon helper exec; }
@test "helper: git clone over http (git http-backend)" { t_compat git_http helper exec; }
@test "helper: pip install from a local simple index" { t_compat pip helper exec; }
@test "helper: npm install from a local registry" { t_compat npm helper exec; }
@test "helper: cargo build --offline with a vendored dependency" { t_compat cargo helper exec; }
@test "helper: go build" { t_compat go_build helper exec; }
@test "helper: go test" { t_compat go_test helper exec; }
@test "helper: make and gcc build a program" { t_compat make_gcc helper exec; }
@test "helper: C: 16 pthreads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat c_threads helper dry-run; }
@test "helper: Python: 16 threads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat py_threads helper dry-run; }
@test "helper: curl fetches from localhost, dry run and apply" { t_compat curl_localhost helper dry-run; }
@test "helper: curl fetches from 127.0.0.1, dry run and apply" { t_compat curl_ip helper dry-run; }
@test "helper: Go net/http: 32 goroutines fetch at once, dry run and apply" { t_compat go_http helper dry-run; }
@test "helper: Java HttpClient: 16 requests at once, dry run and apply" { t_compat java_http helper dry-run; }
@test "helper: Node fetch: 16 requests at once, dry run and apply" { t_compat node_fetch helper dry-run; }
@test "helper: git clone over git:// (git daemon), dry run and apply" { t_compat git_daemon helper dry-run; }
@test "helper: git clone over http (git http-backend), dry run and apply" { t_compat git_http helper dry-run; }
@test "helper: pip install from a local simple index, dry run and apply" { t_compat pip helper dry-run; }
@test "helper: npm install from a local registry, dry run and apply" { t_compat npm helper dry-run; }
@test "helper: cargo build --offline with a vendored dependency, dry run and apply" { t_compat cargo helper dry-run; }
@test "helper: go build, dry run and apply" { t_compat go_build helper dry-run; }
@test "helper: go test, dry run and apply" { t_compat go_test helper dry-run; }
@test "helper: make and gcc build a program, dry run and apply" { t_compat make_gcc helper dry-run; }
@test "helper: C threads are refused an outside unix socket, as the main thread" { t_unix_refused helper "$TCLIENT"; }
@test "helper: Python threads are refused an outside unix socket, as the main thread" { t_unix_refused helper python3 "$COMPAT_DIR/tclient.py"; }

# helper-landlock

@test "helper-landlock: C: 16 pthreads and the main thread connect to 127.0.0.1" { t_compat c_threads helper-landlock exec; }
@test "helper-landlock: Python: 16 threads and the main thread connect to 127.0.0.1" { t_compat py_threads helper-landlock exec; }
@test "helper-landlock: curl fetches from localhost" { t_compat curl_localhost helper-landlock exec; }
@test "helper-landlock: curl fetches from 127.0.0.1" { t_compat curl_ip helper-landlock exec; }
@test "helper-landlock: Go net/http: 32 goroutines fetch at once" { t_compat go_http helper-landlock exec; }
@test "helper-landlock: Java HttpClient: 16 requests at once" { t_compat java_http helper-landlock exec; }
@test "helper-landlock: Node fetch: 16 requests at once" { t_compat node_fetch helper-landlock exec; }
@test "helper-landlock: git clone over git:// (git daemon)" { t_compat git_daemon helper-landlock exec; }
@test "helper-landlock: git clone over http (git http-backend)" { t_compat git_http helper-landlock exec; }
@test "helper-landlock: pip install from a local simple index" { t_compat pip helper-landlock exec; }
@test "helper-landlock: npm install from a local registry" { t_compat npm helper-landlock exec; }
@test "helper-landlock: cargo build --offline with a vendored dependency" { t_compat cargo helper-landlock exec; }
@test "helper-landlock: go build" { t_compat go_build helper-landlock exec; }
@test "helper-landlock: go test" { t_compat go_test helper-landlock exec; }
@test "helper-landlock: make and gcc build a program" { t_compat make_gcc helper-landlock exec; }
@test "helper-landlock: C: 16 pthreads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat c_threads helper-landlock dry-run; }
@test "helper-landlock: Python: 16 threads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat py_threads helper-landlock dry-run; }
@test "helper-landlock: curl fetches from localhost, dry run and apply" { t_compat curl_localhost helper-landlock dry-run; }
@test "helper-landlock: curl fetches from 127.0.0.1, dry run and apply" { t_compat curl_ip helper-landlock dry-run; }
@test "helper-landlock: Go net/http: 32 goroutines fetch at once, dry run and apply" { t_compat go_http helper-landlock dry-run; }
@test "helper-landlock: Java HttpClient: 16 requests at once, dry run and apply" { t_compat java_http helper-landlock dry-run; }
@test "helper-landlock: Node fetch: 16 requests at once, dry run and apply" { t_compat node_fetch helper-landlock dry-run; }
@test "helper-landlock: git clone over git:// (git daemon), dry run and apply" { t_compat git_daemon helper-landlock dry-run; }
@test "helper-landlock: git clone over http (git http-backend), dry run and apply" { t_compat git_http helper-landlock dry-run; }
@test "helper-landlock: pip install from a local simple index, dry run and apply" { t_compat pip helper-landlock dry-run; }
@test "helper-landlock: npm install from a local registry, dry run and apply" { t_compat npm helper-landlock dry-run; }
@test "helper-landlock: cargo build --offline with a vendored dependency, dry run and apply" { t_compat cargo helper-landlock dry-run; }
@test "helper-landlock: go build, dry run and apply" { t_compat go_build helper-landlock dry-run; }
@test "helper-landlock: go test, dry run and apply" { t_compat go_test helper-landlock dry-run; }
@test "helper-landlock: make and gcc build a program, dry run and apply" { t_compat make_gcc helper-landlock dry-run; }
@test "helper-landlock: C threads are refused an outside unix socket, as the main thread" { t_unix_refused helper-landlock "$TCLIENT"; }
@test "helper-landlock: Python threads are refused an outside unix socket, as the main thread" { t_unix_refused helper-landlock python3 "$COMPAT_DIR/tclient.py"; }

# bwrap

@test "bwrap: C: 16 pthreads and the main thread connect to 127.0.0.1" { t_compat c_threads bwrap exec; }
@test "bwrap: Python: 16 threads and the main thread connect to 127.0.0.1" { t_compat py_threads bwrap exec; }
@test "bwrap: curl fetches from localhost" { t_compat curl_localhost bwrap exec; }
@test "bwrap: curl fetches from 127.0.0.1" { t_compat curl_ip bwrap exec; }
@test "bwrap: Go net/http: 32 goroutines fetch at once" { t_compat go_http bwrap exec; }
@test "bwrap: Java HttpClient: 16 requests at once" { t_compat java_http bwrap exec; }
@test "bwrap: Node fetch: 16 requests at once" { t_compat node_fetch bwrap exec; }
@test "bwrap: git clone over git:// (git daemon)" { t_compat git_daemon bwrap exec; }
@test "bwrap: git clone over http (git http-backend)" { t_compat git_http bwrap exec; }
@test "bwrap: pip install from a local simple index" { t_compat pip bwrap exec; }
@test "bwrap: npm install from a local registry" { t_compat npm bwrap exec; }
@test "bwrap: cargo build --offline with a vendored dependency" { t_compat cargo bwrap exec; }
@test "bwrap: go build" { t_compat go_build bwrap exec; }
@test "bwrap: go test" { t_compat go_test bwrap exec; }
@test "bwrap: make and gcc build a program" { t_compat make_gcc bwrap exec; }
@test "bwrap: C: 16 pthreads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat c_threads bwrap dry-run; }
@test "bwrap: Python: 16 threads and the main thread connect to 127.0.0.1, dry run and apply" { t_compat py_threads bwrap dry-run; }
@test "bwrap: curl fetches from localhost, dry run and apply" { t_compat curl_localhost bwrap dry-run; }
@test "bwrap: curl fetches from 127.0.0.1, dry run and apply" { t_compat curl_ip bwrap dry-run; }
@test "bwrap: Go net/http: 32 goroutines fetch at once, dry run and apply" { t_compat go_http bwrap dry-run; }
@test "bwrap: Java HttpClient: 16 requests at once, dry run and apply" { t_compat java_http bwrap dry-run; }
@test "bwrap: Node fetch: 16 requests at once, dry run and apply" { t_compat node_fetch bwrap dry-run; }
@test "bwrap: git clone over git:// (git daemon), dry run and apply" { t_compat git_daemon bwrap dry-run; }
@test "bwrap: git clone over http (git http-backend), dry run and apply" { t_compat git_http bwrap dry-run; }
@test "bwrap: pip install from a local simple index, dry run and apply" { t_compat pip bwrap dry-run; }
@test "bwrap: npm install from a local registry, dry run and apply" { t_compat npm bwrap dry-run; }
@test "bwrap: cargo build --offline with a vendored dependency, dry run and apply" { t_compat cargo bwrap dry-run; }
@test "bwrap: go build, dry run and apply" { t_compat go_build bwrap dry-run; }
@test "bwrap: go test, dry run and apply" { t_compat go_test bwrap dry-run; }
@test "bwrap: make and gcc build a program, dry run and apply" { t_compat make_gcc bwrap dry-run; }
@test "bwrap: C threads are refused an outside unix socket, as the main thread" { t_unix_refused bwrap "$TCLIENT"; }
@test "bwrap: Python threads are refused an outside unix socket, as the main thread" { t_unix_refused bwrap python3 "$COMPAT_DIR/tclient.py"; }

# npm's own cache (~/.npm by default, no npm_config_cache) through the
# grant the README's recipe gives, on a home that has no ~/.npm yet: exec
# makes it (0700) and npm installs; the same run without the grant fails,
# so the grant is what made it work.
t_npm_home_grant() {
	local npm='npm install --registry "http://127.0.0.1:$HTTP_PORT/" --loglevel=error --no-audit --no-fund --no-update-notifier
	test "$(node -p "require(\"tinypkg\")")" = "hello from tinypkg"'
	need node npm
	use_backend "$1"
	cd "$WS" || return 1
	fix_npm
	[ ! -e "$HOME/.npm" ]
	run "$ARCTURN_BIN" exec -- sh -c "$npm"
	echo "$output"
	assert_failure
	[ ! -e "$WS/node_modules/tinypkg" ]
	run "$ARCTURN_BIN" exec --grant '~/.npm' -- sh -c "$npm"
	echo "$output"
	assert_success
	assert_output --partial "created ~/.npm"
	[ -d "$HOME/.npm/_cacache" ]
	[ "$(stat -c %a "$HOME/.npm")" = 700 ]
}

@test "helper: npm install with its cache in ~/.npm, granted as '~/.npm' on a home without it" { t_npm_home_grant helper; }
@test "helper-landlock: npm install with its cache in ~/.npm, granted as '~/.npm' on a home without it" { t_npm_home_grant helper-landlock; }
@test "bwrap: npm install with its cache in ~/.npm, granted as '~/.npm' on a home without it" { t_npm_home_grant bwrap; }
