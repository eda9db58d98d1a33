#!/usr/bin/env bats
# arcturn exec under the helper backend (forced with ARCTURN_BACKEND=helper):
# every escape is tried for real from inside, and what must keep working
# is run. The bodies are in exec_helpers.bash, shared by every backend.

load common
load exec_helpers
load exec_escape

setup_file() { probe_machine; }
setup() { common_setup; use_backend helper; }
teardown() { stop_listener; escape_teardown; }

@test "helper: sandbox status reports the helper with its mount layer" {
	run "$ARCTURN_BIN" sandbox status --json
	assert_success
	# every guarantee but one: a mount covers only what exists
	run status_json_get 'j["backend"], [k for k, g in j["guarantees"].items() if not g["holds"]]'
	assert_output "helper+mount ['protected_missing']"
}

@test "helper: writing a file outside the roots is refused" { t_write_outside; }
@test "helper: creating files outside is refused" { t_create_outside; }
@test "helper: truncating a file outside is refused" { t_truncate_outside; }
@test "helper: deleting or renaming outside is refused" { t_delete_rename_outside; }
@test "helper: hard links and renames across the boundary are refused" { t_links_across; }
@test "helper: a symlink in the workspace does not lead out" { t_symlink_out; }
@test "helper: chmod, chown, utimes and xattrs outside are refused" { t_metadata_outside; }
@test "helper: fifos, sockets and device nodes outside are refused" { t_special_outside; }
@test "helper: protected paths (.git/hooks, .git/config) stay read-only" { t_protected; }
@test "helper: moving .git away does not get around protected paths" { t_protected_parent; }
@test "helper: undoing the confinement from inside fails" { t_undo_confinement; }
@test "helper: /proc/PID/root of an outside process does not lead out" { t_proc_root; }
@test "helper: root cannot open other devices for writing" { t_devices; }
@test "helper: root cannot write a device node made in the workspace" { t_device_in_workspace; }
@test "helper: a regular file as stdin does not become writable" { t_stdin; }
@test "helper: inherited descriptors do not lead out" { t_inherited_fds; }
@test "helper: a socket gate that cannot start (no /proc) exits 125 and runs nothing" { t_gate_no_proc; }
@test "helper: a current directory outside the workspace does not lead out" { t_cwd_outside; }
@test "helper: inherited descriptors are no handle for metadata changes" { t_fd_metadata; }
@test "helper: TIOCSTI is refused" { t_tiocsti; }
@test "helper: signals to outside processes are refused" { t_signals; }
@test "helper: --network off cuts loopback TCP, --network on keeps it" { t_network; }
@test "helper: the helper cache cannot be changed from inside" {
	"$ARCTURN_BIN" exec -- true
	mkdir -p "$HOME/.arcturn/cache"
	echo keep >"$HOME/.arcturn/cache/landlock-helper-0000000000000000"
	echo keep >"$HOME/.arcturn/cache/other"
	local before
	before=$(snap "$HOME/.arcturn/cache")
	try_all "echo x > '$HOME/.arcturn/cache/landlock-helper-0000000000000000'" \
	    "rm -f '$HOME/.arcturn/cache/other'" "touch '$HOME/.arcturn/cache/new'" \
	    "mv '$HOME/.arcturn/cache' '$HOME/.arcturn/c2'"
	assert_equal "$(snap "$HOME/.arcturn/cache")" "$before"
}
@test "helper: writes the workspace, the temp dir and a grant" { t_write_roots; }
@test "helper: git init, add and commit work" { t_git; }
@test "helper: gcc and make build a program" { t_build; }
@test "helper: Python multiprocessing works (/dev/shm)" { t_multiprocessing; }
@test "helper: a pty can be opened" { t_pty; }
@test "helper: /dev/null, /dev/zero, /dev/full and /dev/shm work" { t_dev_files; }
@test "helper: arcturn exec nests inside itself" { t_nested; }
@test "helper: exit status is the command's" { t_exit_status; }

# Escapes through outside daemons, IPC, lifetime and the standard
# descriptors (exec_escape.bash): each result is read outside.
@test "helper: tmux with an inherited TMUX variable does not reach its server" { t_tmux_inherited; }
@test "helper: tmux's default socket in the temp dir is out of reach" { t_tmux_tmpdir; }
@test "helper: a stream daemon's socket is refused unless allowed" { t_stream_daemon; }
@test "helper: a datagram daemon's socket is refused unless allowed" { t_dgram_daemon; }
@test "helper: abstract sockets outside are reachable only where status says so" { t_abstract; }
@test "helper: the command's own sockets work" { t_own_sockets; }
@test "helper: a socket in the workspace is reachable" { t_workspace_socket; }
@test "helper: SysV IPC of outside processes is out of reach" { t_ipc; }
@test "helper: kill -9 of arcturn ends the command" { t_kill9; }
@test "helper: kill -9 of arcturn during a dry run ends the command" { t_kill9 --dry-run; }
@test "helper: SIGINT, SIGTERM and SIGHUP reach the command" { t_signals_reach; }
@test "helper: SIGINT, SIGTERM and SIGHUP reach the command in a dry run" { t_signals_reach --dry-run; }
@test "helper: /dev/stdout and /dev/stderr on files outside can be written" { t_dev_stderr; }
@test "helper: /dev/stdout and /dev/stderr on files work in a dry run" { t_dev_stderr --dry-run; }
@test "helper: a read-only fd 1 or 2 does not become writable" { t_readonly_fd1; }
@test "helper: a read-only fd 1 or 2 does not become writable in a dry run" { t_readonly_fd1 --dry-run; }
@test "helper: a directory on fd 0, 1 or 2 is refused" { t_dir_fd; }
@test "helper: a directory on fd 0, 1 or 2 is refused in a dry run" { t_dir_fd --dry-run; }
