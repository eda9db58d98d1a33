#!/bin/sh
# Reproducible release build of the Linux x86_64 binary (`make release`).
#
# Builds build/arcturn (static, the Landlock helper embedded) twice from
# scratch, in release/out/build-a and release/out/build-b, with the
# Makefile's own flags; the only thing added is EXTRA_CFLAGS with the
# reproducibility flags below. Fails unless the two binaries are
# byte-identical. Then release/out holds exactly two files:
# arcturn-VERSION-x86_64-linux and SHA256SUMS (for `sha256sum -c`).
#
# Not included yet: the macOS and Windows binaries of `make cross`. As they
# are linked today they are not reproducible (the Mach-O symbol table names
# each object file with its path and mtime; the PE header carries the link
# time), so they cannot pass the check above.
set -eu
cd "$(dirname "$0")/.."
ver=$(sed -n 's/^#define ARCTURN_VERSION[[:space:]]*"\(.*\)"/\1/p' src/cmd.h)
if [ -z "$ver" ]; then
	echo "release: no ARCTURN_VERSION in src/cmd.h" >&2
	exit 1
fi
export SOURCE_DATE_EPOCH=0 LC_ALL=C TZ=UTC
rm -rf release/out
for b in a b; do
	make -s BUILD="release/out/build-$b" \
		EXTRA_CFLAGS="-ffile-prefix-map=$PWD=. -fno-ident" \
		"release/out/build-$b/arcturn"
done
if ! cmp release/out/build-a/arcturn release/out/build-b/arcturn; then
	echo "release: the two builds differ: not reproducible" >&2
	exit 1
fi
name=arcturn-$ver-x86_64-linux
cp release/out/build-a/arcturn "release/out/$name"
rm -rf release/out/build-a release/out/build-b
(cd release/out && sha256sum "$name" >SHA256SUMS)
echo "release: release/out/$name (two builds byte-identical)"
cat release/out/SHA256SUMS
