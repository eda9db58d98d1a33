#!/bin/sh
# Install the Debian packages the parts of the build or of the tests
# need, the first time they need them: the one mechanism vendor/bootstrap.sh,
# the Makefile and tests/run share. Each part's packages are its line in
# vendor/packages. Packages already installed are left alone and nothing
# is printed; otherwise it says what it will install and how much (from
# `apt-get -s` and apt-cache's sizes) before it does.
#
#	sh vendor/need.sh [-v] PART...
#
# -v also says so when nothing is missing.
# As root apt-get runs directly; as a normal user through
# sudo; when neither is possible, or ARCTURN_NO_INSTALL=1, it names the
# missing packages and the command that installs them, and exits 1 (the
# caller decides: the build stops, a test part skips saying why). npm and
# nodejs count as present when npm and node are on PATH, whatever
# installed them (another nodejs build than Debian's will do).
set -eu
verbose=
[ "${1:-}" = -v ] && { verbose=1; shift; }
[ $# -gt 0 ] || { echo "usage: vendor/need.sh [-v] PART..." >&2; exit 2; }
list=$(dirname "$0")/packages
what=$*
pkgs=
for part in "$@"; do
	got=$(awk -v p="$part" '$1 == p { $1 = ""; print }' "$list")
	[ -n "$got" ] || { echo "vendor/need.sh: no part $part in vendor/packages" >&2; exit 2; }
	pkgs="$pkgs $got"
done

missing=
for p in $(printf '%s\n' $pkgs | awk '!seen[$0]++'); do
	case $p in
	npm|nodejs) command -v "${p%js}" >/dev/null && continue ;;
	esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -z "$verbose" ] || echo "need: $what: nothing to install (all $(printf '%s\n' $pkgs | sort -u | wc -l) packages present)"
	exit 0
fi

if [ "$(id -u)" = 0 ]; then
	root=
elif command -v sudo >/dev/null; then
	root=sudo
else
	root=none
fi

# How much: the packages apt-get would install with their dependencies,
# and apt-cache's sizes of them (download and unpacked, in KiB).
size() {
	# shellcheck disable=SC2086
	inst=$(apt-get -s install --no-install-recommends $missing 2>/dev/null |
		sed -n 's/^Inst \([^ ]*\) .*/\1/p')
	[ -n "$inst" ] || return 0
	# shellcheck disable=SC2086
	apt-cache show --no-all-versions $inst 2>/dev/null | awk -v n="$(echo $inst | wc -w)" '
		/^Installed-Size:/ { i += $2 }
		/^Size:/ { s += $2 }
		END { if (i > 0) printf " (%d packages with their dependencies: %.1f MB to download, %.1f MB installed)", n, s / 1e6, i * 1024 / 1e6 }'
}

if [ "$root" = none ] || [ "${ARCTURN_NO_INSTALL:-}" = 1 ]; then
	echo "need: $what needs$missing$(size); install them as root: apt-get install --no-install-recommends$missing" >&2
	[ "$root" = none ] && echo "need: (not root, and no sudo to install with)" >&2
	exit 1
fi

# The package lists first (a fresh machine's are empty), then the sizes.
$root apt-get update -qq
echo "need: $what: installing$missing$(size)${root:+ (with sudo)}"
# shellcheck disable=SC2086
$root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends $missing >/dev/null
