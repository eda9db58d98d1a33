#!/usr/bin/env bats
# --network off against every channel out, on every backend (issue 25, 9).
# With a network namespace (helper with its mount layer, bwrap) the
# command's packets stay in it; without one (helper-landlock) Landlock
# refuses TCP and the helper's seccomp filter every other inet socket
# (MPTCP, UDP, ICMP, raw) and packet sockets. Each channel is first used
# outside arcturn against the same observer (the control: the attack
# works there), then from inside; the observer, outside, must have seen
# the control's marker and never the command's.

load common
load exec_helpers

NETOFF_PY="$BATS_TEST_DIRNAME/netoff.py"

setup_file() { probe_machine; }
setup() { common_setup; OBS=; }
teardown() {
	if [ -n "$OBS" ]; then
		kill "$OBS" 2>/dev/null || true
		wait "$OBS" 2>/dev/null || true
	fi
}

# The observer: its port in OBSPORT once it is listening (read from a
# fifo: no polling), what reached it in $T/obs.log.
start_observer() {
	mkfifo "$T/obs.fifo"
	python3 "$NETOFF_PY" observe "$T/obs.log" >"$T/obs.fifo" 3>&- &
	OBS=$!
	read -r OBSPORT <"$T/obs.fifo"
	[ -n "$OBSPORT" ]
}

# Stop it after it has read what was sent before, and wait until it has.
stop_observer() {
	python3 -c 'import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"stop",
    ("127.0.0.1", int(sys.argv[1])))' "$OBSPORT"
	wait "$OBS"
	OBS=
}

# t_netoff BACKEND CHANNEL
t_netoff() {
	local ch=$2 inside status_in
	use_backend "$1"
	start_observer
	run timeout 20 python3 "$NETOFF_PY" send "$ch" "$OBSPORT" "ctl-$ch"
	if [ "$status" -ne 0 ]; then
		stop_observer
		skip "$ch does not work here even outside arcturn: $output"
	fi
	run timeout 20 "$ARCTURN_BIN" exec --network off -- \
	    python3 "$NETOFF_PY" send "$ch" "$OBSPORT" "in-$ch"
	inside=$output status_in=$status
	echo "inside ($status_in): $inside"
	[ "$status_in" -ne 124 ]	# refused, not hanging
	stop_observer
	run cat "$T/obs.log"
	echo "observer: $output"
	refute_line "in-$ch"
	case $ch in
	icmp|raw|packet)
		# only root's raw and packet sockets see these from outside
		if [ "$(id -u)" -eq 0 ]; then
			assert_line "ctl-$ch"
		elif [ "$1" != helper-landlock ]; then
			skip "no outside observer of $ch without root"
		fi ;;
	*)	assert_line "ctl-$ch" ;;
	esac
	if [ "$1" = helper-landlock ]; then
		# no network namespace: the socket itself is refused
		[ "$status_in" -eq 1 ]
		[ "$inside" = "error 13 Permission denied" ]
	fi
}

@test "helper-landlock: --network off: sandbox status says what holds" {
	use_backend helper-landlock
	run status_json_get 'j["guarantees"]["network_off"]["holds"], j["guarantees"]["network_off"]["why"]'
	assert_success
	assert_output --partial "True"
	assert_output --partial "no other inet socket (no UDP, MPTCP, ICMP, SCTP or raw) and no packet socket"
}

@test "helper-landlock: --network off still makes unix and TCP sockets" {
	use_backend helper-landlock
	run "$ARCTURN_BIN" exec --network off -- python3 -c 'import socket
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.send(b"x"); print("unix", b.recv(1).decode())
socket.socket(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_CLOEXEC, 6)
print("tcp socket made")'
	assert_success
	assert_output "unix x
tcp socket made"
}

@test "helper-landlock: --network off: mptcp to an outside listener does not get out" { t_netoff helper-landlock mptcp; }
@test "helper-landlock: --network off: udp to an outside listener does not get out" { t_netoff helper-landlock udp; }
@test "helper-landlock: --network off: icmp to an outside listener does not get out" { t_netoff helper-landlock icmp; }
@test "helper-landlock: --network off: raw to an outside listener does not get out" { t_netoff helper-landlock raw; }
@test "helper-landlock: --network off: packet to an outside listener does not get out" { t_netoff helper-landlock packet; }

@test "helper: --network off: mptcp to an outside listener does not get out" { t_netoff helper mptcp; }
@test "helper: --network off: udp to an outside listener does not get out" { t_netoff helper udp; }
@test "helper: --network off: icmp to an outside listener does not get out" { t_netoff helper icmp; }
@test "helper: --network off: raw to an outside listener does not get out" { t_netoff helper raw; }
@test "helper: --network off: packet to an outside listener does not get out" { t_netoff helper packet; }

@test "bwrap: --network off: mptcp to an outside listener does not get out" { t_netoff bwrap mptcp; }
@test "bwrap: --network off: udp to an outside listener does not get out" { t_netoff bwrap udp; }
@test "bwrap: --network off: icmp to an outside listener does not get out" { t_netoff bwrap icmp; }
@test "bwrap: --network off: raw to an outside listener does not get out" { t_netoff bwrap raw; }
@test "bwrap: --network off: packet to an outside listener does not get out" { t_netoff bwrap packet; }
