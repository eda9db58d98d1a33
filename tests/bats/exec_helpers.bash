# Helpers for the exec*.bats suites (load after common): what the machine
# can run, forcing a backend, trying an escape from inside the sandbox, and
# proving that nothing outside changed.

bats_require_minimum_version 1.5.0

# Errors a refused write may come back with, depending on the layer that
# refused it (Landlock: EACCES/EPERM; read-only mount: EROFS; crossing
# mounts: EXDEV; a mount point: EBUSY).
DENIED='Read-only file system|Permission denied|Operation not permitted|Invalid cross-device link|Device or resource busy|cross-device'

# Probe the machine once per file, independently of arcturn, so that a
# wrong report from arcturn fails a test instead of skipping it.
probe_machine() {
	HAVE_LANDLOCK=0 HAVE_USERNS=0 HAVE_BWRAP=0
	if python3 -c 'import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if l.syscall(444, None, 0, 1) > 0 else 1)' 2>/dev/null; then
		HAVE_LANDLOCK=1
	fi
	unshare -Urm true 2>/dev/null && HAVE_USERNS=1
	if command -v bwrap >/dev/null &&
	    bwrap --ro-bind / / --dev /dev true 2>/dev/null; then
		HAVE_BWRAP=1
	fi
	export HAVE_LANDLOCK HAVE_USERNS HAVE_BWRAP
}

# use_backend NAME: force NAME (helper, helper-landlock, bwrap) for the
# rest of the test, or skip when this machine cannot run it.
use_backend() {
	case $1 in
	helper)
		[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel"
		[ "$HAVE_USERNS" = 1 ] ||
			skip "no user namespaces: no mount layer for the helper" ;;
	helper-landlock)
		[ "$HAVE_LANDLOCK" = 1 ] || skip "no Landlock in this kernel" ;;
	bwrap)
		[ "$HAVE_BWRAP" = 1 ] || skip "bwrap missing or unusable here" ;;
	esac
	export ARCTURN_BACKEND=$1
}

# snap DIR: everything about DIR and what is beneath it that a confined
# command must not change: names, types, modes, owners, sizes, mtimes,
# link targets, contents, extended attributes.
snap() {
	(
		cd "$1" || exit 1
		find . -printf '%y %m %U:%G %s %T@ %n %p -> %l\n' | LC_ALL=C sort
		find . -type f -exec sha256sum {} + | LC_ALL=C sort
		if command -v getfattr >/dev/null; then
			getfattr -R -h -d -m - . 2>/dev/null
		fi
	)
}

# try_all OP...: run every OP (a shell snippet) inside one confined shell,
# each in its own sh; every one of them must fail, for a reason that is a
# refusal. Extra arcturn exec flags go in the array XFLAGS.
try_all() {
	local script n
	# shellcheck disable=SC2016
	script='for op in "$@"; do
		if sh -c "$op" 2>&1; then echo "ESCAPED: $op"; else echo "refused($?): $op"; fi
	done; echo "confined shell done"'
	run "$ARCTURN_BIN" exec "${XFLAGS[@]}" -- sh -c "$script" sh "$@"
	echo "$output"
	assert_success
	assert_line "confined shell done"
	refute_output --partial "ESCAPED"
	n=$(grep -c '^refused(' <<<"$output")
	[ "$n" -eq $# ]
	assert_output --regexp "$DENIED"
}

# must_work SCRIPT [ARG]...: SCRIPT succeeds inside the sandbox.
must_work() {
	run "$ARCTURN_BIN" exec "${XFLAGS[@]}" -- sh -c "$@"
	echo "$output"
	assert_success
}

# A file outside every writable root, with an xattr when the fs takes one.
make_outside() {
	echo original >"$OUT/f"
	chmod 644 "$OUT/f"
	touch -d '2001-02-03 04:05:06' "$OUT/f"
	mkdir -p "$OUT/dir"
	echo inner >"$OUT/dir/g"
	if command -v setfattr >/dev/null; then
		setfattr -n user.arcturn -v kept "$OUT/f" 2>/dev/null || true
	fi
	touch -d '2001-02-03 04:05:06' "$OUT/dir" "$OUT"
}

# status_json_get EXPR: evaluate a Python expression over the JSON of
# `arcturn sandbox status --json` (bound to j).
status_json_get() {
	"$ARCTURN_BIN" sandbox status --json |
		python3 -c 'import json, sys; j = json.load(sys.stdin); print('"$1"')'
}

# A TCP listener on 127.0.0.1 outside the sandbox; its port in $PORT.
# It answers "hello" and goes away after 30 idle seconds at the latest.
start_listener() {
	python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
s.settimeout(30)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
try:
    while True:
        c, _ = s.accept()
        c.sendall(b"hello")
        c.close()
except OSError:
    pass
' "$T/port" 3>&- >/dev/null 2>&1 &
	LISTENER=$!
	local i
	for i in $(seq 200); do
		[ -s "$T/port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$T/port")
	[ -n "$PORT" ]
}

# stop_bg PID: end a server the test started in the background (none: "").
stop_bg() {
	[ -n "${1:-}" ] || return 0
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

stop_listener() {
	stop_bg "${LISTENER:-}"
	LISTENER=
}

CONNECT='import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
print("got", s.recv(5).decode())'

# ON_PTY_PY CMD...: run CMD with a new pty as its controlling terminal and
# standard streams (like a user's terminal), print what it wrote there.
ON_PTY_PY='import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(st))'

# Push a character into the terminal on stdin; print the errno name, or
# "allowed".
TIOCSTI_PY='import errno, fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#")
    print("tiocsti: allowed")
except OSError as e:
    print("tiocsti:", errno.errorcode.get(e.errno, e.errno))'


# ---------------------------------------------------------------------
# Test bodies shared by exec-helper.bats, exec-helper-landlock.bats and
# exec-bwrap.bats (each forces its backend in setup). Every escape is
# tried for real inside the sandbox; then nothing outside may differ.

XFLAGS=()

t_write_outside() {
	make_outside
	local before
	before=$(snap "$OUT")
	try_all "echo x > '$OUT/f'" "echo x >> '$OUT/f'" \
	    "printf x | dd of='$OUT/f' conv=notrunc status=none" \
	    "python3 -c 'open(\"$OUT/f\", \"r+\").write(\"x\")'" \
	    "echo x > '$OUT/dir/g'"
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$OUT/f")" original
}

t_create_outside() {
	make_outside
	local before
	before=$(snap "$OUT")
	try_all "echo x > '$OUT/new'" "touch '$OUT/new'" "mkdir '$OUT/newdir'" \
	    "ln -s /etc/passwd '$OUT/sym'" "echo x > '$OUT/dir/new'" \
	    "python3 -c 'import os; os.open(\"$OUT/new2\", os.O_CREAT | os.O_EXCL | os.O_RDONLY)'"
	assert_equal "$(snap "$OUT")" "$before"
}

t_truncate_outside() {
	make_outside
	local before
	before=$(snap "$OUT")
	try_all "truncate -s0 '$OUT/f'" ": > '$OUT/f'" "truncate -s 100 '$OUT/f'" \
	    "python3 -c 'import os; os.truncate(\"$OUT/f\", 0)'" \
	    "python3 -c 'import os; os.open(\"$OUT/f\", os.O_RDONLY | os.O_TRUNC)'"
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$OUT/f")" original
}

t_delete_rename_outside() {
	make_outside
	mkdir "$OUT/empty"
	touch -d '2001-02-03 04:05:06' "$OUT"
	local before
	before=$(snap "$OUT")
	try_all "rm -f '$OUT/f'" "rm -rf '$OUT/dir'" "rmdir '$OUT/empty'" \
	    "python3 -c 'import os; os.rename(\"$OUT/f\", \"$OUT/f2\")'" \
	    "python3 -c 'import os; os.replace(\"$OUT/dir/g\", \"$OUT/f\")'" \
	    "python3 -c 'import os; os.rename(\"$OUT/empty\", \"$OUT/dir/e\")'"
	assert_equal "$(snap "$OUT")" "$before"
}

t_links_across() {
	make_outside
	echo mine >"$WS/mine"
	local before
	before=$(snap "$OUT")
	try_all "ln '$OUT/f' '$WS/hl' && echo x >> '$WS/hl'" \
	    "ln '$WS/mine' '$OUT/mine'" \
	    "python3 -c 'import os; os.rename(\"$OUT/f\", \"$WS/moved\")'" \
	    "python3 -c 'import os; os.rename(\"$WS/mine\", \"$OUT/mine\")'" \
	    "python3 -c 'import os; os.rename(\"$OUT/dir\", \"$WS/movedir\")'"
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$WS/mine")" mine
	[ ! -e "$WS/hl" ]
	[ ! -e "$WS/moved" ]
	[ ! -e "$WS/movedir" ]
}

t_symlink_out() {
	make_outside
	ln -s "$OUT/f" "$WS/out-link"
	ln -s "$OUT/dir" "$WS/out-dir"
	ln -s "$OUT" "$WS/out-root"
	local before
	before=$(snap "$OUT")
	try_all "echo x > '$WS/out-link'" "echo x >> '$WS/out-link'" \
	    "echo x > '$WS/out-dir/new'" "echo x > '$WS/out-root/f'" \
	    "truncate -s0 '$WS/out-link'" "rm '$WS/out-root/f'" \
	    "ln -s '$OUT/f' '$WS/l2' && echo x > '$WS/l2'" \
	    "cd '$WS/out-dir' && echo x > g"
	assert_equal "$(snap "$OUT")" "$before"
}

t_metadata_outside() {
	make_outside
	local before ops
	before=$(snap "$OUT")
	ops=("chmod 600 '$OUT/f'" "chmod 700 '$OUT/dir'"
	    "chown $(id -u):$(id -g) '$OUT/f'"
	    "touch -d '2020-01-01 00:00' '$OUT/f'" "touch '$OUT/dir'"
	    "python3 -c 'import os; os.utime(\"$OUT/f\", (0, 0))'")
	if command -v setfattr >/dev/null; then
		ops+=("setfattr -n user.new -v 1 '$OUT/f'"
		    "setfattr -x user.arcturn '$OUT/f'")
	fi
	try_all "${ops[@]}"
	assert_equal "$(snap "$OUT")" "$before"
}

t_special_outside() {
	make_outside
	local before ops
	before=$(snap "$OUT")
	ops=("mkfifo '$OUT/p'" "mknod '$OUT/p2' p" "mkfifo '$OUT/dir/p'"
	    "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"$OUT/sock\")'")
	is_root && ops+=("mknod '$OUT/c' c 1 3")
	try_all "${ops[@]}"
	assert_equal "$(snap "$OUT")" "$before"
}

git_repo() {
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
	    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
	git init -q "$WS"
	echo one >"$WS/a"
	git -C "$WS" add a
	git -C "$WS" commit -qm one
}

t_protected() {
	git_repo
	local hooks config
	hooks=$(snap "$WS/.git/hooks")
	config=$(stat -c '%a %s %Y %i' "$WS/.git/config"; cat "$WS/.git/config")
	try_all "echo x > .git/config" "echo x >> .git/config" \
	    "touch .git/hooks/x" "echo 'touch $OUT/pwn' > .git/hooks/pre-commit" \
	    "rm .git/config" "rm -rf .git/hooks" "mv .git/hooks .git/h2" \
	    "mv .git/config .git/c2" "chmod 777 .git/hooks" \
	    "git config core.hooksPath '$OUT'" "truncate -s0 .git/config"
	assert_equal "$(snap "$WS/.git/hooks")" "$hooks"
	assert_equal "$(stat -c '%a %s %Y %i' "$WS/.git/config"; cat "$WS/.git/config")" "$config"
	[ ! -e "$OUT/pwn" ]
}

# Moving the parent of a protected path away and putting a new one in its
# place must not be a way around the protection.
t_protected_parent() {
	git_repo
	local config
	config=$(cat "$WS/.git/config")
	try_all "mv .git .git-old && mkdir -p .git/hooks && echo 'touch $OUT/pwn' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit" \
	    "mv .git .git-old2 && cp -r .git-old2 .git && printf '[core]\\n\\thooksPath = $OUT\\n' > .git/config"
	[ -d "$WS/.git/hooks" ]
	[ ! -e "$WS/.git/hooks/pre-commit" ]
	assert_equal "$(cat "$WS/.git/config")" "$config"
	run git -C "$WS" log --oneline
	assert_success
	assert_output --partial one
}

# A repository whose .git/hooks does not exist yet: the command must not be
# able to plant one.
# Undo the confinement from inside (remount, nested namespaces, bind
# mounts, the new mount API), then write.
MOUNT_SETATTR_PY='import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)  # clear MOUNT_ATTR_RDONLY
if l.syscall(442, -100, b"/", 0x8000, attr, 32) != 0:
    sys.exit("mount_setattr: " + os.strerror(ctypes.get_errno()))
open(sys.argv[1], "w").write("x")'

t_undo_confinement() {
	make_outside
	mkdir -p "$WS/mnt"
	local before py=$T/mount_setattr.py
	printf '%s\n' "$MOUNT_SETATTR_PY" >"$py"
	before=$(snap "$OUT")
	try_all "mount -o remount,rw / && echo x > '$OUT/f'" \
	    "mount --bind '$OUT' '$WS/mnt' && echo x > '$WS/mnt/f'" \
	    "mount --bind '$OUT' '$WS/mnt' && mount -o remount,bind,rw '$WS/mnt' && echo x > '$WS/mnt/f'" \
	    "python3 '$py' '$OUT/f'" \
	    "unshare -Urm sh -c \"mount -o remount,rw / && echo x > '$OUT/f'\"" \
	    "unshare -Urm sh -c \"mount -o remount,bind,rw '$OUT' ; echo x > '$OUT/f'\"" \
	    "unshare -Urm sh -c \"mount --bind '$OUT' '$WS/mnt' && echo x > '$WS/mnt/f'\"" \
	    "unshare -Urm sh -c \"mount --bind '$OUT' '$WS/mnt' && mount -o remount,bind,rw '$WS/mnt' && echo x > '$WS/mnt/f'\"" \
	    "unshare -Urm sh -c \"umount -l '$WS' ; umount -l '$OUT' ; umount -l / ; echo x > '$OUT/f'\"" \
	    "unshare -Urm python3 '$py' '$OUT/f'" \
	    "unshare -Urm sh -c \"mount -t tmpfs none '$WS/mnt' && mount --move '$WS/mnt' '$OUT' && echo x > '$OUT/f'\""
	assert_equal "$(snap "$OUT")" "$before"
}

# Through /proc/PID/root of a process outside the sandbox (the test shell).
t_proc_root() {
	make_outside
	local before
	before=$(snap "$OUT")
	# in a pid namespace of its own the outside process is not there
	DENIED="$DENIED|Directory nonexistent|No such file or directory" \
	    try_all "echo x > /proc/$$/root$OUT/f" "echo x > /proc/$$/cwd/../outside/f" \
	    "echo x > /proc/$$/root$OUT/new"
	assert_equal "$(snap "$OUT")" "$before"
}

# Devices other than the allowed ones: only open(O_WRONLY) is attempted,
# nothing is ever written to a real device.
t_devices() {
	is_root || skip "device nodes are root's only"
	local disk d ops=()
	for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0; do
		[ -b "$d" ] && { disk=$d; break; }
	done
	[ -n "$disk" ] && ops+=("python3 -c 'import os; os.open(\"$disk\", os.O_WRONLY)'")
	[ -c /dev/loop-control ] && ops+=("python3 -c 'import os; os.open(\"/dev/loop-control\", os.O_WRONLY)'")
	[ -c /dev/kmsg ] && ops+=("python3 -c 'import os; os.open(\"/dev/kmsg\", os.O_WRONLY)'")
	[ ${#ops[@]} -gt 0 ] || skip "no device to try"
	# a device that is not there at all (bwrap's own /dev) is fine too
	DENIED="$DENIED|No such file or directory" try_all "${ops[@]}"
}

# A device node made in the workspace (a copy of /dev/null: harmless if
# it works) must not be a way to reach devices.
t_device_in_workspace() {
	is_root || skip "making device nodes is root's only"
	try_all "mknod '$WS/nul' c 1 3 && echo x > '$WS/nul'"
}

# A regular file on stdin must not become writable: either the reopen is
# refused, or what the command got was not the file (bwrap hands it a pipe).
t_stdin() {
	make_outside
	local before
	before=$(snap "$OUT")
	run "$ARCTURN_BIN" exec -- sh -c 'echo x >> /proc/self/fd/0; echo "rc=$?"
		python3 -c "import os; os.write(os.open(\"/proc/self/fd/0\", os.O_WRONLY), b\"y\")"; echo "rc=$?"
		truncate -s0 /proc/self/fd/0; echo "rc=$?"
		echo z > /dev/stdin; echo "rc=$?"' <"$OUT/f"
	echo "$output"
	assert_success
	assert_equal "$(snap "$OUT")" "$before"
	# and stdin still reads
	run "$ARCTURN_BIN" exec -- cat <"$OUT/f"
	assert_success
	assert_output original
}

# The current directory outside the workspace: -C runs the command in
# the workspace, and the command goes outside itself.
t_cwd_outside() {
	make_outside
	local before
	before=$(snap "$OUT")
	cd "$OUT" || return 1
	# shellcheck disable=SC2016
	run "$ARCTURN_BIN" -C "$WS" exec -- sh -c 'cd "$2" || exit 99
		echo x > f; echo "rc=$?"
		touch new; echo "rc=$?"; rm f; echo "rc=$?"
		echo in > "$1/in"' sh "$WS" "$OUT"
	cd "$WS" || return 1
	echo "$output"
	assert_success
	assert_line --regexp '^rc=[1-9]'
	refute_line rc=0
	assert_equal "$(snap "$OUT")" "$before"
	assert_equal "$(cat "$WS/in")" in
}

# Other inherited descriptors: a directory outside (fd 3) and a file
# outside opened read-only (fd 4) must not lead to writes there.
# t_gate_no_proc: the socket gate cannot start without /proc (hidden
# under a tmpfs): exec exits 125 saying so and the command never runs;
# the control runs the same command with the same hidden /proc outside.
t_gate_no_proc() {
	unshare -rm true 2>/dev/null || skip "no user namespace for unshare"
	local hide='mount -t tmpfs none /proc && exec "$@"'
	run unshare -rm sh -c "$hide" sh sh -c 'echo ran >"$1"' sh "$T/control"
	assert_success
	assert_equal "$(cat "$T/control")" ran
	run unshare -rm sh -c "$hide" sh "$ARCTURN_BIN" exec -- \
	    sh -c 'echo ran >"$1"' sh "$T/cmd"
	assert_equal "$status" 125
	assert_output --partial "unix socket gate: /proc/self/fd"
	run test -e "$T/cmd"
	assert_failure
}

t_inherited_fds() {
	make_outside
	local before
	before=$(snap "$OUT")
	run "$ARCTURN_BIN" exec -- sh -c 'echo x > /proc/self/fd/3/new; echo "rc=$?"
		echo x >> /proc/self/fd/3/f; echo "rc=$?"
		rm /proc/self/fd/3/f; echo "rc=$?"
		python3 -c "import os; os.write(os.open(\"f\", os.O_WRONLY | os.O_APPEND, dir_fd=3), b\"x\")"; echo "rc=$?"
		python3 -c "import os; os.mkdir(\"d\", dir_fd=3)"; echo "rc=$?"
		echo y >> /proc/self/fd/4; echo "rc=$?"
		python3 -c "import os; os.truncate(4, 0)"; echo "rc=$?"' \
	    3<"$OUT" 4<"$OUT/f"
	echo "$output"
	assert_success
	assert_equal "$(snap "$OUT")" "$before"
}

# Nor a handle for metadata changes (where the backend claims to refuse
# metadata changes outside the roots): stdin a file outside, fd 3 a
# directory outside.
t_fd_metadata() {
	make_outside
	local before
	before=$(snap "$OUT")
	run "$ARCTURN_BIN" exec -- sh -c 'chmod 600 /proc/self/fd/0; echo "rc=$?"
		python3 -c "import os; os.fchmod(0, 0o600)"; echo "rc=$?"
		python3 -c "import os; os.utime(0, (0, 0))"; echo "rc=$?"
		python3 -c "import os; os.fchown(0, os.getuid(), os.getgid())"; echo "rc=$?"
		touch /dev/stdin; echo "rc=$?"
		setfattr -n user.new -v 1 /proc/self/fd/0; echo "rc=$?"
		chmod 700 /proc/self/fd/3/dir; echo "rc=$?"
		touch /proc/self/fd/3/f; echo "rc=$?"
		python3 -c "import os; os.fchmod(3, 0o700)"; echo "rc=$?"' \
	    <"$OUT/f" 3<"$OUT"
	echo "$output"
	assert_success
	assert_equal "$(snap "$OUT")" "$before"
}

# The command's terminal is the user's: it must not be able to type into
# it. Without the sandbox the same call works where the kernel still allows
# legacy TIOCSTI, which keeps this test honest.
t_tiocsti() {
	run python3 -c "$ON_PTY_PY" python3 -c "$TIOCSTI_PY"
	assert_success
	local outside=$output
	run python3 -c "$ON_PTY_PY" "$ARCTURN_BIN" exec -- python3 -c "$TIOCSTI_PY"
	echo "outside: $outside; inside: $output"
	assert_success
	if [[ $outside == *"tiocsti: allowed"* ]]; then
		assert_output "tiocsti: EPERM"
	else
		refute_output --partial allowed
	fi
}

t_signals() {
	sleep 60 3>&- &
	local pid=$!
	# in a pid namespace of its own the outside process is not there
	DENIED="$DENIED|No such process" try_all "kill -TERM $pid" "kill -KILL $pid"
	kill -0 "$pid"
	kill "$pid"
	wait "$pid" || true
}

t_network() {
	start_listener
	run timeout 20 python3 -c "$CONNECT" "$PORT"
	assert_success	# the listener works outside
	run timeout 20 "$ARCTURN_BIN" exec --network off -- python3 -c "$CONNECT" "$PORT"
	echo "$output"
	assert_failure
	refute_output --partial "got hello"
	[ "$status" -ne 124 ]	# refused, not hanging
	assert_output --regexp 'Error|refused|denied|unreachable'
	run timeout 20 "$ARCTURN_BIN" exec --network on -- python3 -c "$CONNECT" "$PORT"
	assert_success
	assert_output "got hello"
	run timeout 20 "$ARCTURN_BIN" exec -- python3 -c "$CONNECT" "$PORT"
	assert_success
	assert_output "got hello"
	stop_listener
}

# --- what must keep working

t_write_roots() {
	mkdir "$OUT/grant"
	XFLAGS=(--grant "$OUT/grant")
	must_work "set -e
		echo a > '$WS/a'; echo more >> '$WS/a'; mkdir -p '$WS/d/e'
		mv '$WS/a' '$WS/d/a'; ln '$WS/d/a' '$WS/d/hl'; rm '$WS/d/hl'
		ln -s a '$WS/d/l'; chmod 600 '$WS/d/a'; touch -d 2001-01-01 '$WS/d/a'
		truncate -s 3 '$WS/d/a'; mkfifo '$WS/fifo'; rm -r '$WS/d/e'
		echo t > \"\$TMPDIR/t\"; mkdir \"\$TMPDIR/td\"
		echo g > '$OUT/grant/g'; mkdir '$OUT/grant/sub'; rm '$OUT/grant/g'
		echo g2 > '$OUT/grant/sub/g2'
		echo s > '$HOME/.arcturn/scratch'"
	XFLAGS=()
	assert_equal "$(cat "$WS/d/a")" "a
m"
	assert_equal "$(stat -c %a "$WS/d/a")" 600
	[ -p "$WS/fifo" ]
	[ -L "$WS/d/l" ]
	[ ! -e "$WS/d/e" ]
	assert_equal "$(cat "$TMPDIR/t")" t
	assert_equal "$(cat "$OUT/grant/sub/g2")" g2
	[ ! -e "$OUT/grant/g" ]
	# only the grant: its neighbours stay out of reach
	try_all "echo x > '$OUT/nope'"
	[ ! -e "$OUT/nope" ]
}

t_git() {
	git_repo
	must_work "set -e
		echo two > b; git add b; git commit -qm two
		git init -q sub; cd sub; echo s > s; git add s; git commit -qm sub"
	run git -C "$WS" log --oneline
	assert_success
	assert_line --partial two
	assert_line --partial one
	run git -C "$WS/sub" log --oneline
	assert_output --partial sub
}

t_build() {
	if ! command -v gcc >/dev/null || ! command -v make >/dev/null; then
		skip "gcc or make missing"
	fi
	printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >hello.c
	# shellcheck disable=SC2016
	printf 'hello: hello.o\n\t$(CC) -o $@ hello.o\n' >Makefile
	must_work 'make -s && ./hello'
	assert_output --partial built
	[ -x "$WS/hello" ]
}

t_multiprocessing() {
	must_work "python3 -c 'import multiprocessing as m
if __name__ == \"__main__\":
    with m.Pool(2) as p:
        print(sum(p.map(abs, range(10))))
    l = m.Lock()
    with l:
        print(\"locked\")'"
	assert_line 45
	assert_line locked
}

t_pty() {
	must_work "python3 -c 'import os, pty
m, s = pty.openpty()
os.write(s, b\"ping\\n\")
print(os.ttyname(s), os.read(m, 16))'"
	assert_output --regexp "^/dev/pts/[0-9]+ b'ping"
	# a pty opened inside is no way around the TIOCSTI refusal
	run "$ARCTURN_BIN" exec -- python3 -c "$ON_PTY_PY" python3 -c "$TIOCSTI_PY"
	echo "$output"
	assert_success
	assert_output --regexp "tiocsti: E[A-Z]+"
	refute_output --partial allowed
	command -v script >/dev/null || return 0
	must_work "script -qc 'echo in-a-pty' /dev/null"
	assert_output --partial in-a-pty
}

t_dev_files() {
	must_work "echo x > /dev/null && head -c 4 /dev/zero | wc -c && ! echo x 2>/dev/null > /dev/full && test -d /dev/shm && echo y > /dev/shm/arcturn-test-\$\$ && rm /dev/shm/arcturn-test-\$\$"
	assert_output 4
}

# arcturn exec inside arcturn exec: the inner one picks its own backend
# (ARCTURN_BACKEND is not passed on), or is forced to the outer's.
t_nested() {
	make_outside
	local before
	before=$(snap "$OUT")
	must_work "env -u ARCTURN_BACKEND '$ARCTURN_BIN' exec -- sh -c 'echo inner > \"$WS/inner\"'"
	assert_equal "$(cat "$WS/inner")" inner
	must_work "'$ARCTURN_BIN' exec -- sh -c 'echo forced > \"$WS/forced\"'"
	assert_equal "$(cat "$WS/forced")" forced
	try_all "env -u ARCTURN_BACKEND '$ARCTURN_BIN' exec -- sh -c 'echo x > \"$OUT/f\"'" \
	    "'$ARCTURN_BIN' exec --sandbox off -- sh -c 'echo x > \"$OUT/f\"'" \
	    "ARCTURN_BACKEND=none '$ARCTURN_BIN' exec -- sh -c 'echo x > \"$OUT/f\"'"
	assert_equal "$(snap "$OUT")" "$before"
}

t_exit_status() {
	run -3 "$ARCTURN_BIN" exec -- sh -c 'exit 3'
	run -143 "$ARCTURN_BIN" exec -- sh -c 'kill -TERM $$'
	run -137 "$ARCTURN_BIN" exec -- sh -c 'kill -KILL $$'
	printf 'echo should not run\n' >"$WS/noexec"
	chmod 644 "$WS/noexec"
	run -126 "$ARCTURN_BIN" exec -- "$WS/noexec"
	refute_output --partial "should not run"
	run -126 "$ARCTURN_BIN" exec -- "$WS"
	run -127 "$ARCTURN_BIN" exec -- arcturn-no-such-command
	run -127 "$ARCTURN_BIN" exec -- "$WS/no-such-file"
	run -0 "$ARCTURN_BIN" exec -- true
}
