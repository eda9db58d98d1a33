#!/bin/sh
# Set up a fresh Debian machine for arcturn and show it working:
# installs the missing build and test tools (apt-get, needs root), fetches
# and verifies the pinned dependencies, builds build/arcturn and runs the
# demo. `vendor/bootstrap.sh --no-demo` stops after the build (CI).
set -eu
cd "$(dirname "$0")/.."

pkgs="make gcc libc6-dev musl-tools dpkg-dev xz-utils patch git python3
	bubblewrap bats bats-assert bats-support bats-file attr util-linux
	mingw-w64 wine wine64"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
# npm (for the pinned zig of `make cross`) may come with another nodejs
# build than Debian's; any npm on PATH will do.
command -v npm >/dev/null || missing="$missing npm"
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "bootstrap: missing packages:$missing (run as root)" >&2
		exit 1
	fi
	echo "bootstrap: installing$missing"
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi
make -s
[ "${1:-}" = --no-demo ] || make -s demo
