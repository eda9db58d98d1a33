#!/usr/bin/env bats
# arcturn exec under the bwrap backend (forced with ARCTURN_BACKEND=bwrap):
# every escape is tried for real from inside, and what must keep working
# is run. The bodies are in exec_helpers.bash, shared by every backend.

load common
load exec_helpers

setup_file() { probe_machine; }
setup() { common_setup; use_backend bwrap; }
teardown() { stop_listener; }

@test "bwrap: sandbox status reports bwrap" {
	run status_json_get 'j["backend"], j["guarantees"]["writes_outside"]["holds"], j["guarantees"]["metadata_outside"]["holds"], j["guarantees"]["protected_paths"]["holds"]'
	assert_success
	assert_output "bwrap True True True"
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
