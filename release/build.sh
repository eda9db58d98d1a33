#!/bin/sh
# Reproducible release build (`make release`).
#
# Builds the five binaries of `make release-bins` twice: build A in this
# checkout (release/out/build-a), build B from a copy of the sources in a
# fresh folder elsewhere, later, with files of other mtimes and its own
# dependencies rebuilt from the verified downloads (no network). Only the
# pinned zig and its cache of the target libcs are shared, as the system's
# musl-gcc and libc.a are. The flags are the Makefile's; the only thing
# added is EXTRA_CFLAGS with the reproducibility flags below, and the
# commit id, so that the copy says what the checkout says. Every binary of
# A must be byte-identical to its B twin, or nothing is published.
#
# release/out then holds:
#	arcturn-VERSION-x86_64-linux	static (musl), x86_64 helper embedded
#	arcturn-VERSION-aarch64-linux	static (musl), aarch64 helper embedded
#	arcturn-VERSION-x86_64-macos
#	arcturn-VERSION-arm64-macos
#	arcturn-VERSION-x86_64-windows.exe
#	the files of release/extras that exist (man page, completions)
#	SHA256SUMS			for `sha256sum -c`
#	SHA256SUMS.sig			when ARCTURN_SIGN_KEY names an SSH key
#					(private, or public with the private
#					one in ssh-agent): `ssh-keygen -Y sign
#					-n file`, checked with -Y verify
#
# ARCTURN_RELEASE_JOBS: parallel make jobs (default: the number of CPUs).
set -eu
key=${ARCTURN_SIGN_KEY:-}
case $key in ''|/*) ;; *) key=$PWD/$key ;; esac
cd "$(dirname "$0")/.."
top=$PWD
out=release/out
max=524288	# each Linux binary, stripped, helper included (512 KiB)

die() { echo "release: $*" >&2; exit 1; }

ver=$(sed -n 's/^#define ARCTURN_VERSION[[:space:]]*"\(.*\)"/\1/p' src/cli/cmd.h)
[ -n "$ver" ] || die "no ARCTURN_VERSION in src/cli/cmd.h"
jobs=${ARCTURN_RELEASE_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ -n "$key" ]; then	# fail now, not after the builds
	[ -r "$key" ] || die "ARCTURN_SIGN_KEY: $key: not readable"
	command -v ssh-keygen >/dev/null || die "ssh-keygen is missing (openssh-client)"
fi
export SOURCE_DATE_EPOCH=0 LC_ALL=C TZ=UTC
commit=$(make -s --no-print-directory print-commit)
native=$(make -s --no-print-directory print-target)
[ "$native" = x86_64-linux-musl ] ||
	die "the native build targets '$native': release builds run on x86_64 Linux"

# build output -> published name
names="arcturn:x86_64-linux
cross/arcturn-linux-aarch64:aarch64-linux
cross/arcturn-macos-x86_64:x86_64-macos
cross/arcturn-macos-arm64:arm64-macos
cross/arcturn-windows-x86_64.exe:x86_64-windows.exe"

build() {	# dir-of-sources build-dir log [make args...]
	src=$1 bdir=$2 log=$3
	shift 3
	if ! (cd "$src" && make -s -j"$jobs" --no-print-directory BUILD="$bdir" \
		EXTRA_CFLAGS="-ffile-prefix-map=$src=. -fno-ident" \
		GIT_COMMIT="$commit" "$@" release-bins) >"$log" 2>&1; then
		tail -40 "$log" >&2
		die "build in $src failed"
	fi
}

rm -rf "$out"
mkdir -p "$out"
b=$(mktemp -d "${TMPDIR:-/tmp}/arcturn-release.XXXXXX")
trap 'rm -rf "$b" "$b.a.log" "$b.b.log"' EXIT INT TERM

t0=$(date +%s)
build "$top" "$out/build-a" "$b.a.log"
t1=$(date +%s)

# B: the sources only (no build output, no .git, no fetched deps), with
# this moment's mtimes; the verified downloads seed its .deps.
tar -C "$top" --exclude=./.git --exclude=./build --exclude='./build-*' \
	--exclude=./.deps --exclude=./release/out --exclude=./bench/out -cf - . |
	tar -C "$b" -xmf -
mkdir -p "$b/.deps/seed/download"
for f in $(awk '$1 !~ /^#/ && NF == 4 { print $3 }' vendor/lock); do
	for d in .deps/*/download; do
		[ -f "$d/$f" ] && cp "$d/$f" "$b/.deps/seed/download/" && break
	done
done
build "$b" build "$b.b.log" NPMDEPS="$top/.deps/npm"
t2=$(date +%s)

bad=0
echo "release: $ver, commit $commit: build A $((t1 - t0)) s, build B $((t2 - t1)) s"
for n in $names; do
	from=${n%%:*} to=arcturn-$ver-${n#*:}
	if cmp -s "$out/build-a/$from" "$b/build/$from"; then
		echo "release: reproducible: $to $(sha256sum <"$out/build-a/$from" | cut -d' ' -f1)"
	else
		echo "release: NOT reproducible: $to: build A and build B differ" >&2
		bad=1
	fi
	cp "$out/build-a/$from" "$out/$to"
done
[ $bad = 0 ] || die "not reproducible: nothing published"

for f in "$out"/arcturn-*-linux; do
	size=$(wc -c <"$f")
	echo "release: $(basename "$f"): $size bytes (at most $max)"
	[ "$size" -le "$max" ] || die "$(basename "$f"): $size bytes, more than $max"
done

# The man page and the completions, where they exist.
grep -v '^#' release/extras | while read -r src dir name; do
	[ -n "$src" ] || continue
	if [ -f "release/$src" ]; then
		cp "release/$src" "$out/$(basename "$src")"
	else
		echo "release: no release/$src yet: not published"
	fi
done

rm -rf "$out/build-a"
(cd "$out" && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' |
	sort | xargs sha256sum >SHA256SUMS)
release/sign.sh "$out" "$key" || die "not signed: SHA256SUMS left unsigned"
cat "$out/SHA256SUMS"
