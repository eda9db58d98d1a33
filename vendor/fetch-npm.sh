#!/bin/sh
# Fetch the toolchains pinned in vendor/lock-npm with the ordinary npm
# client (`npm pack`: download only, no install scripts run), verify each
# tarball against its SHA-256, and unpack it.
#
#   vendor/fetch-npm.sh OUTDIR
#
# OUTDIR/download keeps the verified tarballs (reused: a rebuild needs no
# network); OUTDIR/<package name with '/' as '+'>-<version>/ is the
# unpacked package (for zig: .../zig). Prints nothing but errors.
set -eu

out=${1:?usage: vendor/fetch-npm.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/lock-npm
mkdir -p "$out/download" "$out/npm-cache"
out=$(cd "$out" && pwd)

die() { echo "vendor/fetch-npm.sh: $*" >&2; exit 1; }

verify() {	# file sum -> 0 if it matches
	[ -f "$1" ] || return 1
	[ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

while read -r pkg ver file sum; do
	case $pkg in ''|'#'*) continue ;; esac
	dir=$out/$(printf '%s' "$pkg" | sed 's|^@||; s|/|+|g')-$ver
	[ -f "$dir/.unpacked" ] && verify "$out/download/$file" "$sum" && continue
	if ! verify "$out/download/$file" "$sum"; then
		command -v npm >/dev/null || die "npm is missing (apt-get install npm)"
		rm -f "$out/download/$file"
		(cd "$out/download" && npm pack --silent --cache "$out/npm-cache" \
			"$pkg@$ver" >/dev/null) || die "npm pack $pkg@$ver failed"
		verify "$out/download/$file" "$sum" ||
			die "$file: SHA-256 mismatch or missing (expected $sum)"
	fi
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xzf "$out/download/$file" -C "$dir.tmp" --strip-components=1 ||
		die "unpacking $file failed"
	mv "$dir.tmp" "$dir"
	: >"$dir/.unpacked"
done <"$lock"
