#!/bin/sh
# Sign DIR/SHA256SUMS with an SSH key: DIR/SHA256SUMS.sig, made by
# `ssh-keygen -Y sign -n file` and checked with `-Y check-novalidate`
# before it is kept. Users verify it with `ssh-keygen -Y verify` and an
# allowed_signers line (README, Install).
#
#   release/sign.sh DIR [KEY]
#
# KEY is a private key file, or a public one whose private half is in
# ssh-agent. Without KEY nothing is signed, and the script says so.
set -eu
dir=${1:?usage: release/sign.sh DIR [KEY]}
key=${2:-}
sums=$dir/SHA256SUMS
[ -f "$sums" ] || { echo "sign: $sums: no such file" >&2; exit 1; }
rm -f "$sums.sig"
if [ -z "$key" ]; then
	echo "release: SHA256SUMS not signed (ARCTURN_SIGN_KEY=path to an SSH key signs it)"
	exit 0
fi
command -v ssh-keygen >/dev/null ||
	{ echo "sign: ssh-keygen is missing (openssh-client)" >&2; exit 1; }
if ! ssh-keygen -q -Y sign -f "$key" -n file "$sums" >/dev/null 2>"$sums.err"; then
	echo "sign: $key: $(tail -1 "$sums.err")" >&2
	rm -f "$sums.err" "$sums.sig"
	exit 1
fi
rm -f "$sums.err"
if ! ssh-keygen -Y check-novalidate -n file -s "$sums.sig" <"$sums" >/dev/null 2>&1; then
	echo "sign: the signature made with $key does not check: removed" >&2
	rm -f "$sums.sig"
	exit 1
fi
echo "release: SHA256SUMS signed with $key (SHA256SUMS.sig)"
