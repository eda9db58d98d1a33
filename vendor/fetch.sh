#!/bin/sh
# Fetch the pinned Debian source packages listed in vendor/lock with
# `apt-get source`, verify every file against its SHA-256, unpack them with
# dpkg-source (which applies Debian's patches), and build static libraries
# with the given C compiler.
#
#   vendor/fetch.sh OUTDIR [CC [AR [CFLAGS]]]
#
# CFLAGS are added to the compiles. The Linux builds pass their SIZEFLAGS
# (no unwind tables: they were 2.5 KB of .eh_frame in the aarch64 binary);
# the others pass none (the Windows x64 ABI expects unwind tables, macOS
# and the sanitizer builds keep theirs too).
#
# OUTDIR receives include/ (cJSON.h, bearssl*.h) and lib/ (libcjson.a,
# libbearssl.a). The system's apt configuration is never modified: deb-src
# entries are derived from the machine's own deb entries into a private
# state folder under OUTDIR. Files already downloaded and verified are
# reused, so a rebuild needs no network.
set -eu

out=${1:?usage: vendor/fetch.sh OUTDIR [CC [AR [CFLAGS]]]}
cc=${2:-musl-gcc}
ar=${3:-ar}
extra=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/lock
mkdir -p "$out"
out=$(cd "$out" && pwd)
dl=$out/download
apt=$out/apt
mkdir -p "$dl" "$apt/sources.list.d" "$apt/lists/partial" \
	"$apt/cache/archives/partial" "$out/include" "$out/lib" "$out/src"

die() { echo "vendor/fetch.sh: $*" >&2; exit 1; }

verify() {	# file sum -> 0 if it matches
	[ -f "$1" ] || return 1
	[ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

need_fetch=
while read -r pkg ver file sum; do
	case $pkg in ''|'#'*) continue ;; esac
	verify "$dl/$file" "$sum" || need_fetch="$need_fetch $pkg=$ver"
done <"$lock"

if [ -n "$need_fetch" ]; then
	# deb822 sources: turn each "Types: deb" stanza into deb-src.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*$/Types: deb-src/' "$f" >"$apt/sources.list.d/$(basename "$f")"
	done
	# one-line sources: keep the deb lines, as deb-src.
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" \
			>"$apt/sources.list.d/$(basename "$f" | tr . _).list"
	done
	set -- -o Dir::Etc::SourceParts="$apt/sources.list.d" \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User=root -qq
	apt-get "$@" update || die "apt-get update (deb-src) failed"
	# shellcheck disable=SC2086
	(cd "$dl" && apt-get "$@" source --download-only $(echo $need_fetch | tr ' ' '\n' | sort -u)) ||
		die "apt-get source failed for:$need_fetch"
fi

while read -r pkg ver file sum; do
	case $pkg in ''|'#'*) continue ;; esac
	verify "$dl/$file" "$sum" || die "$file: SHA-256 mismatch or missing (expected $sum)"
done <"$lock"

unpack() {	# pkg ver -> directory with Debian's patches applied
	d=$out/src/$1-$2
	if [ ! -f "$d/.unpacked" ]; then
		rm -rf "$d"
		dpkg-source --no-check -x "$dl/$1_$2.dsc" "$d" >/dev/null ||
			die "dpkg-source -x $1_$2.dsc failed"
		: >"$d/.unpacked"
	fi
	echo "$d"
}

ver_of() { awk -v p="$1" '$1 == p { print $2; exit }' "$lock"; }

cflags="-O2 -fPIC -fno-strict-aliasing -w -fno-ident -ffunction-sections -fdata-sections $extra"

d=$(unpack cjson "$(ver_of cjson)")
$cc $cflags -c "$d/cJSON.c" -o "$out/src/cJSON.o"
rm -f "$out/lib/libcjson.a"
$ar rcs "$out/lib/libcjson.a" "$out/src/cJSON.o"
cp "$d/cJSON.h" "$out/include/"

d=$(unpack bearssl "$(ver_of bearssl)")
# Only what arcturn uses: hashes, HMAC-DRBG and the system seeder.
objs=
for s in "$d"/src/hash/*.c "$d"/src/mac/*.c "$d"/src/rand/*.c \
	"$d"/src/codec/dec32be.c "$d"/src/codec/enc32be.c \
	"$d"/src/codec/dec64be.c "$d"/src/codec/enc64be.c \
	"$d"/src/codec/dec32le.c "$d"/src/codec/enc32le.c \
	"$d"/src/codec/dec64le.c "$d"/src/codec/enc64le.c; do
	o=$out/src/bearssl_$(basename "$s" .c).o
	$cc $cflags -I"$d/inc" -I"$d/src" -c "$s" -o "$o"
	objs="$objs $o"
done
rm -f "$out/lib/libbearssl.a"
# shellcheck disable=SC2086
$ar rcs "$out/lib/libbearssl.a" $objs
cp "$d"/inc/*.h "$out/include/"
echo "vendor: cjson $(ver_of cjson), bearssl $(ver_of bearssl) verified and built with $cc"
