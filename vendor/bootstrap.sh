#!/bin/sh
# Set up a fresh Debian machine for arcturn and show it working: installs
# what building, the demo and the quick tests need and is missing
# (vendor/packages: the build, demo and check lines; on a machine with only make, gcc and git,
# some tens of MB, mostly dpkg-dev's perl and python3; how much is said
# before anything is installed), fetches and verifies the pinned
# dependencies, builds build/arcturn and runs the demo.
#
#	sh vendor/bootstrap.sh [--no-demo]
#
# Run it as yourself or as root (a container without sudo). Only apt-get
# needs root, and only when something is missing: a normal user is asked
# for sudo then; everything else runs as the caller, so the checkout and
# its build stay the caller's. --no-demo stops after the build (CI).
# What only the full tests use (strace, tmux, the toolchains, Wine, qemu,
# clang, the completions' shells) is installed by `make test`, part by
# part, when it first runs (vendor/need.sh).
set -eu
cd "$(dirname "$0")/.."
sh vendor/need.sh -v build demo check || {
	echo "bootstrap: install the packages above, or run as root or with sudo" >&2
	exit 1
}
make -s
[ "${1:-}" = --no-demo ] || make -s demo
