#!/usr/bin/env bats
# arcturn exec under the bwrap backend (forced with ARCTURN_BACKEND=bwrap):
# every escape is tried for real from inside, and what must keep working
# is run. The bodies are in exec_helpers.bash, shared by every backend.

load common
load exec_helpers
load exec_escape

setup_file() { probe_machine; }
setup() { common_setup; use_backend bwrap; }
teardown() { stop_listener; escape_teardown; }

@test "bwrap: sandbox status reports bwrap" {
	run status_json_get 'j["backend"], j["guarantees"]["writes_outside"]["holds"], j["guarantees"]["metadata_outside"]["holds"], j["guarantees"]["protected_paths"]["holds"]'
	assert_success
	assert_output "bwrap True True True"
	# abstract sockets are shared with the network on (tested below)
	run status_json_get 'j["guarantees"]["ipc"]["holds"], j["guarantees"]["lifetime"]["holds"], j["guarantees"]["unix_sockets"]["holds"], j["guarantees"]["abstract_sockets"]["holds"]'
	assert_output "True True True False"
}

@test "bwrap: writing a file outside the roots is refused" { t_write_outside; }
@test "bwrap: creating files outside is refused" { t_create_outside; }
@test "bwrap: truncating a file outside is refused" { t_truncate_outside; }
@test "bwrap: deleting or renaming outside is refused" { t_delete_rename_outside; }
@test "bwrap: hard links and renames across the boundary are refused" { t_links_across; }
@test "bwrap: a symlink in the workspace does not lead out" { t_symlink_out; }
@test "bwrap: chmod, chown, utimes and xattrs outside are refused" { t_metadata_outside; }
@test "bwrap: fifos, sockets and device nodes outside are refused" { t_special_outside; }
@test "bwrap: protected paths (.git/hooks, .git/config) stay read-only" { t_protected; }
@test "bwrap: moving .git away does not get around protected paths" { t_protected_parent; }
@test "bwrap: undoing the confinement from inside fails" { t_undo_confinement; }
@test "bwrap: /proc/PID/root of an outside process does not lead out" { t_proc_root; }
@test "bwrap: root cannot open other devices for writing" { t_devices; }
@test "bwrap: root cannot write a device node made in the workspace" { t_device_in_workspace; }
@test "bwrap: a regular file as stdin does not become writable" { t_stdin; }
@test "bwrap: inherited descriptors do not lead out" { t_inherited_fds; }
@test "bwrap: a current directory outside the workspace does not lead out" { t_cwd_outside; }
@test "bwrap: inherited descriptors are no handle for metadata changes" { t_fd_metadata; }
@test "bwrap: TIOCSTI is refused" { t_tiocsti; }
@test "bwrap: --network off cuts loopback TCP, --network on keeps it" { t_network; }
@test "bwrap: writes the workspace, the temp dir and a grant" { t_write_roots; }
@test "bwrap: git init, add and commit work" { t_git; }
@test "bwrap: gcc and make build a program" { t_build; }
@test "bwrap: Python multiprocessing works (/dev/shm)" { t_multiprocessing; }
@test "bwrap: a pty can be opened" { t_pty; }
@test "bwrap: /dev/null, /dev/zero, /dev/full and /dev/shm work" { t_dev_files; }
@test "bwrap: arcturn exec nests inside itself" { t_nested; }
@test "bwrap: exit status is the command's" { t_exit_status; }

# Escapes through outside daemons, IPC, lifetime and the standard
# descriptors (exec_escape.bash): each result is read outside.
@test "bwrap: tmux with an inherited TMUX variable does not reach its server" { t_tmux_inherited; }
@test "bwrap: tmux's default socket in the temp dir is out of reach" { t_tmux_tmpdir; }
@test "bwrap: a stream daemon's socket is refused unless allowed" { t_stream_daemon; }
@test "bwrap: a datagram daemon's socket is refused unless allowed" { t_dgram_daemon; }
@test "bwrap: abstract sockets outside are reachable only where status says so" { t_abstract; }
@test "bwrap: the command's own sockets work" { t_own_sockets; }
@test "bwrap: a socket in the workspace is reachable" { t_workspace_socket; }
@test "bwrap: SysV IPC of outside processes is out of reach" { t_ipc; }
@test "bwrap: kill -9 of arcturn ends the command" { t_kill9; }
@test "bwrap: SIGINT, SIGTERM and SIGHUP reach the command" { t_signals_reach; }
@test "bwrap: /dev/stdout and /dev/stderr on files outside can be written" { t_dev_stderr; }
@test "bwrap: a read-only fd 1 or 2 does not become writable" { t_readonly_fd1; }
@test "bwrap: a directory on fd 0, 1 or 2 is refused" { t_dir_fd; }
