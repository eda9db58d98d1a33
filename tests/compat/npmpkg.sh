#!/bin/sh
# The npm package the local registry serves (tests/bats/compat.bats and
# bench/toolchains.sh): tinypkg 1.0.0, a tarball of fixed bytes and its
# packument, as static files under WWW (tests/compat/server.py http).
#
#	npmpkg.sh tarball WWW WORKDIR	WWW/tinypkg/-/tinypkg-1.0.0.tgz
#	npmpkg.sh packument WWW PORT	WWW/tinypkg/index.json, which names
#					the tarball on 127.0.0.1:PORT
set -eu
www=$2
tgz=$www/tinypkg/-/tinypkg-1.0.0.tgz
case $1 in
tarball)
	mkdir -p "$3/package" "$www/tinypkg/-"
	printf '{"name": "tinypkg", "version": "1.0.0", "main": "index.js", "license": "MIT"}\n' \
	    >"$3/package/package.json"
	echo 'module.exports = "hello from tinypkg";' >"$3/package/index.js"
	tar -C "$3" --mtime=2020-01-01 --owner=0 --group=0 --numeric-owner \
	    -cf - package | gzip -n >"$tgz" ;;
packument)
	sha1=$(sha1sum "$tgz" | cut -d' ' -f1)
	integrity=sha512-$(python3 -c 'import base64, hashlib, sys
print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tgz")
	cat >"$www/tinypkg/index.json" <<-JSON
	{"name": "tinypkg", "dist-tags": {"latest": "1.0.0"},
	 "versions": {"1.0.0": {"name": "tinypkg", "version": "1.0.0",
	  "main": "index.js", "license": "MIT",
	  "dist": {"tarball": "http://127.0.0.1:$3/tinypkg/-/tinypkg-1.0.0.tgz",
	   "shasum": "$sha1", "integrity": "$integrity"}}}}
	JSON
	;;
*)
	echo "usage: npmpkg.sh tarball WWW WORKDIR | packument WWW PORT" >&2
	exit 2 ;;
esac
