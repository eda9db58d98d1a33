#!/bin/sh
# Install arcturn (`make install`): the binary as DESTDIR/PREFIX/bin/arcturn,
# and each file of release/extras (man page, completions) that exists, at
# its place under PREFIX; the missing ones are named, not installed.
#
#   release/install.sh BINARY DESTDIR PREFIX [SOURCE_DIR]
#
# SOURCE_DIR holds the extras (default: release/ beside this script).
set -eu
usage="usage: release/install.sh BINARY DESTDIR PREFIX [SOURCE_DIR]"
bin=${1:?$usage}
dest=${2?$usage}
prefix=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
src=${4:-$here}
label=${4:-release}
case $prefix in /*) ;; *) echo "install: PREFIX must be absolute: $prefix" >&2; exit 1 ;; esac
[ -f "$bin" ] || { echo "install: $bin: no such file (run make first)" >&2; exit 1; }
root=$dest$prefix

install -d "$root/bin"
install -m 755 "$bin" "$root/bin/arcturn"
echo "install: $root/bin/arcturn"
grep -v '^#' "$here/extras" | while read -r file dir name; do
	[ -n "$file" ] || continue
	if [ -f "$src/$file" ]; then
		install -d "$root/$dir"
		install -m 644 "$src/$file" "$root/$dir/$name"
		echo "install: $root/$dir/$name"
	else
		echo "install: no $label/$file yet: not installed"
	fi
done
