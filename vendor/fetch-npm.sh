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
#
#   vendor/fetch-npm.sh --ci DIR OUTDIR
#
# Test-time packages (DIR: tests/mcp): DIR/package-lock.json must hold
# exactly the packages, versions and integrity hashes that vendor/lock-npm's
# `ci DIR ...` lines record (no more, no fewer, none without a hash); then
# DIR's package.json and lock are copied to OUTDIR and `npm ci` installs
# them there (no install scripts run; npm checks every tarball against the
# lock's hash). An install whose lock is unchanged is reused.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
lock=$here/lock-npm

die() { echo "vendor/fetch-npm.sh: $*" >&2; exit 1; }

if [ "${1:-}" = --ci ]; then
	dir=${2:?usage: vendor/fetch-npm.sh --ci DIR OUTDIR}
	out=${3:?usage: vendor/fetch-npm.sh --ci DIR OUTDIR}
	top=$(cd "$here/.." && pwd)
	command -v npm >/dev/null && command -v node >/dev/null ||
		die "npm and node are missing (apt-get install npm)"
	pl=$top/$dir/package-lock.json
	[ -f "$pl" ] || die "$dir/package-lock.json is missing"
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	# the lock's packages, in vendor/lock-npm's form
	node -e '
		const l = JSON.parse(require("fs").readFileSync(process.argv[1]));
		for (const [k, v] of Object.entries(l.packages || {})) {
			if (k === "") continue;
			if (!v.integrity || !v.version || v.link)
				{ console.log("BAD " + k); continue; }
			console.log("ci " + process.argv[2] + " " + k + "@" +
			    v.version + " " + v.integrity);
		}' "$pl" "$dir" | LC_ALL=C sort >"$out/lock.have"
	grep -q '^BAD ' "$out/lock.have" &&
		die "$dir/package-lock.json: a package without a version or integrity hash: $(sed -n 's/^BAD //p' "$out/lock.have" | head -1)"
	awk -v d="$dir" '$1 == "ci" && $2 == d' "$lock" | LC_ALL=C sort >"$out/lock.want"
	[ -s "$out/lock.want" ] || die "vendor/lock-npm records nothing for $dir"
	if ! cmp -s "$out/lock.have" "$out/lock.want"; then
		diff "$out/lock.want" "$out/lock.have" | head -20 >&2
		die "$dir/package-lock.json differs from what vendor/lock-npm records (above: < recorded, > in the lock)"
	fi
	sum=$(sha256sum "$pl" | cut -d' ' -f1)
	[ -f "$out/.installed" ] && [ "$(cat "$out/.installed")" = "$sum" ] &&
		[ -d "$out/node_modules" ] && exit 0
	rm -f "$out/.installed"
	cp "$top/$dir/package.json" "$pl" "$out/"
	(cd "$out" && npm ci --ignore-scripts --no-audit --no-fund \
		--cache "$out/npm-cache" --loglevel=error >/dev/null) ||
		die "npm ci in $out failed"
	echo "$sum" >"$out/.installed"
	exit 0
fi

out=${1:?usage: vendor/fetch-npm.sh OUTDIR}
mkdir -p "$out/download" "$out/npm-cache"
out=$(cd "$out" && pwd)

verify() {	# file sum -> 0 if it matches
	[ -f "$1" ] || return 1
	[ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

while read -r pkg ver file sum; do
	case $pkg in ''|'#'*|ci) continue ;; esac
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
