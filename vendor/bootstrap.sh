#!/bin/sh
# Set up a fresh Debian machine for arcturn and show it working: installs
# the missing build and test tools with apt-get, fetches and verifies the
# pinned dependencies, builds build/arcturn and runs the demo.
#
#	sh vendor/bootstrap.sh [--no-demo]
#
# Run it as yourself or as root (a container without sudo). Only apt-get
# needs root, and only when something is missing: a normal user is asked
# for sudo then; everything else runs as the caller, so the checkout and
# its build stay the caller's. --no-demo stops after the build (CI).
set -eu
cd "$(dirname "$0")/.."

# qemu-user-static runs the aarch64 build (tests/qemu/run), openssh-client
# checks release signatures (tests/release/run), tmux is the outside
# daemon the sandbox escape tests try to reach (tests/bats/exec_escape.bash),
# mandoc lints the man page and bash-completion, zsh and fish drive the
# completions (tests/bats/manpage.bats, tests/bats/completion.bats), clang
# and its runtime build the libFuzzer targets (tests/fuzz/run), strace
# stops or slows apply at a chosen system call (tests/bats/dryrun-*.bats),
# curl, golang, default-jdk-headless, cargo, rustc, python3-pip and
# python3-venv are the clients and toolchains run under exec against
# loopback servers (tests/bats/compat.bats; node and npm: below);
# keyutils (keyctl) and libcap2-bin (setcap) drive the keyring and file
# capability escapes (tests/bats/exec-escape3.bats).
pkgs="make gcc libc6-dev musl-tools dpkg-dev xz-utils patch git python3
	bubblewrap bats bats-assert bats-support bats-file attr util-linux
	keyutils libcap2-bin
	mingw-w64 wine wine64 qemu-user-static openssh-client tmux
	mandoc bash-completion zsh fish clang libclang-rt-dev strace
	curl golang default-jdk-headless cargo rustc python3-pip python3-venv"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
# npm (for the pinned zig of `make cross`, and npm install in
# compat.bats) may come with another nodejs build than Debian's; any npm
# and node on PATH will do.
command -v npm >/dev/null || missing="$missing npm"
command -v node >/dev/null || missing="$missing nodejs"
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		root=
	elif command -v sudo >/dev/null; then
		root=sudo
	else
		echo "bootstrap: missing packages:$missing (run as root, or install sudo)" >&2
		exit 1
	fi
	echo "bootstrap: installing$missing${root:+ (with sudo)}"
	$root apt-get update -qq
	# shellcheck disable=SC2086
	$root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi
make -s
[ "${1:-}" = --no-demo ] || make -s demo
