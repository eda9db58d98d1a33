#!/usr/bin/env bats
# Nested sandboxes: a command under exec makes user namespaces of its own
# (unshare -Ur, bwrap inside) where its backend allows it, and nothing it
# does in one gets it out: every attack is also run outside arcturn as a
# control, so that a test cannot pass because the attack itself is broken.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() {
	common_setup
	[ "$HAVE_USERNS" = 1 ] || skip "no user namespaces on this machine"
	echo original >"$OUT/f"
}
teardown() { stop_unix_listener; }

# What `sandbox status` must say for backend $1 as this user.
nested_expected() {
	case $1 in
	helper) if is_root; then echo unmapped; else echo id_maps; fi ;;
	helper-landlock) echo unmapped ;;
	bwrap) echo mounts ;;
	esac
}

# nested_status BACKEND: force it and check what status says about it.
nested_status() {
	use_backend "$1"
	run status_json_get 'j["nested_namespaces"]'
	assert_success
	assert_output "$(nested_expected "$1")"
	run "$ARCTURN_BIN" sandbox status
	assert_line --regexp "^nested_namespaces: $(nested_expected "$1"): "
}

# A unix socket listener outside every root, at $1; it answers "hello".
# Returns once it listens (a fifo is the handshake).
start_unix_listener() {
	mkfifo "$T/ready"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
s.settimeout(30)
open(sys.argv[2], "w").write("ready\n")
try:
    while True:
        c, _ = s.accept()
        c.sendall(b"hello")
        c.close()
except OSError:
    pass
' "$1" "$T/ready" 3>&- >/dev/null 2>&1 &
	ULISTENER=$!
	read -r _ <"$T/ready"
}

stop_unix_listener() {
	stop_bg "${ULISTENER:-}"
	ULISTENER=
}

UCONNECT='import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
print("got", s.recv(5).decode())'

# unshare -Ur works exactly where status says it does.
t_unshare() {
	nested_status "$1"
	run "$ARCTURN_BIN" exec -- unshare -Ur id -u
	case $(nested_expected "$1") in
	mounts|id_maps)
		assert_success
		assert_output 0 ;;
	*)
		assert_failure
		# an unmapped one still works: the kernel allows it
		run "$ARCTURN_BIN" exec -- unshare -U true
		assert_success ;;
	esac
}

# Writes outside the roots from inside a nested namespace, and with a
# mount namespace of its own: a bind mount remounted read-write, a
# protected file uncovered or remounted.
NESTED_WRITES=(
	"unshare -Ur sh -c 'echo x > \$OUT/f'"
	"unshare -Urm sh -c 'mount --bind \$OUT \$OUT && mount -o remount,bind,rw \$OUT && echo x > \$OUT/f'"
	"unshare -Urm sh -c 'umount -l .git/config; echo x >> .git/config'"
	"unshare -Urm sh -c 'mount --bind .git/config .git/config && mount -o remount,bind,rw .git/config && echo x >> .git/config'"
)

t_nested_writes() {
	local op config
	git_repo
	config=$(cat "$WS/.git/config")
	export OUT
	# the control: each one writes when nothing confines it
	for op in "${NESTED_WRITES[@]}"; do
		cp "$WS/.git/config" "$T/config.saved"
		echo original >"$OUT/f"
		run sh -c "$op"
		assert_success
		cp "$T/config.saved" "$WS/.git/config"
	done
	echo original >"$OUT/f"
	use_backend "$1"
	[ "$(nested_expected "$1")" != unmapped ] ||
		skip "no id maps in a nested namespace under $1 (status says so)"
	try_all "${NESTED_WRITES[@]}"
	assert_equal "$(cat "$OUT/f")" original
	assert_equal "$(cat "$WS/.git/config")" "$config"
}

# The socket gate decides for a nested namespace as for the command: an
# outside socket, named as it is or through a bind mount into the
# workspace, is refused.
t_nested_socket() {
	local ops
	start_unix_listener "$OUT/sock"
	mkdir "$WS/d"
	printf '%s\n' "$UCONNECT" >"$T/uconnect.py"
	ops=("unshare -Ur python3 '$T/uconnect.py' '$OUT/sock'"
	    "unshare -Urm sh -c \"mount --bind '$OUT' '$WS/d' && python3 '$T/uconnect.py' '$WS/d/sock'\"")
	# the control
	run sh -c "${ops[0]}"
	assert_success
	assert_output "got hello"
	run sh -c "${ops[1]}"
	assert_success
	assert_output "got hello"
	use_backend "$1"
	[ "$(nested_expected "$1")" != unmapped ] ||
		skip "no id maps in a nested namespace under $1 (status says so)"
	run "$ARCTURN_BIN" exec -- sh -c "${ops[0]}"
	assert_failure
	assert_output --partial "Permission denied"
	refute_output --partial "got hello"
	run "$ARCTURN_BIN" exec -- sh -c "${ops[1]}"
	assert_failure
	refute_output --partial "got hello"
}

@test "helper: unshare -Ur inside works where status says so" { t_unshare helper; }
@test "helper-landlock: unshare -Ur inside works where status says so" { t_unshare helper-landlock; }
@test "bwrap: unshare -Ur inside works where status says so" { t_unshare bwrap; }

@test "helper: writes from a nested namespace stay refused" { t_nested_writes helper; }
@test "helper-landlock: writes from a nested namespace stay refused" { t_nested_writes helper-landlock; }
@test "bwrap: writes from a nested namespace stay refused" { t_nested_writes bwrap; }

@test "helper: the socket gate refuses an outside socket from a nested namespace" { t_nested_socket helper; }
@test "helper-landlock: the socket gate refuses an outside socket from a nested namespace" { t_nested_socket helper-landlock; }
@test "bwrap: the socket gate refuses an outside socket from a nested namespace" { t_nested_socket bwrap; }

@test "bwrap: bwrap runs inside bwrap" {
	command -v bwrap >/dev/null || skip "no bwrap"
	bwrap --ro-bind / / --dev /dev true || skip "bwrap cannot run here"
	use_backend bwrap
	local userns=()
	is_root && userns=(--unshare-user)
	run "$ARCTURN_BIN" exec -- bwrap "${userns[@]}" --ro-bind / / --dev /dev sh -c "echo x > '$OUT/f'"
	assert_failure
	assert_output --regexp "$DENIED"
	assert_equal "$(cat "$OUT/f")" original
	run "$ARCTURN_BIN" exec -- bwrap "${userns[@]}" --ro-bind / / --dev /dev true
	assert_success
}

@test "helper: the mount layer gives a nested namespace no way to write /proc/sys or the supervisor" {
	use_backend helper
	is_root && skip "root's /proc stays read-only (t_unshare checks it)"
	run "$ARCTURN_BIN" exec -- sh -c '
		for f in /proc/sys/kernel/domainname /proc/1/oom_score_adj; do
			unshare -Ur sh -c "echo 1 > $f" 2>/dev/null && echo "ESCAPED: $f"
			sh -c "echo 1 > $f" 2>/dev/null && echo "ESCAPED: $f"
		done
		echo done'
	assert_success
	assert_output done
}
