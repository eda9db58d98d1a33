#!/bin/sh
# `git status` in an 8,000-file repo (a git repo of /usr/include), run
# directly, under `arcturn exec` and under `arcturn exec --dry-run`, in
# alternating rounds (bench/alt.c), printed as the median per-round ratio
# to the direct run. Not a test: it prints, and exits 1 only when it could
# not measure. Needs git and cc.
#
#   bench/exec-git.sh [ROUNDS]      (BUILD=dir for another build dir)
#
# Targets: exec / direct <= 1.05 (issue 10); exec --dry-run / direct
# <= 1.8 (issue 11). A dry run of a command that leaves nothing changed
# (git makes and removes index.lock) must not sync the file system.
#
# The peer for the dry run: the same git status on a bare overlayfs,
# mounted as the helper mounts it (a user and mount namespace of its own,
# userxattr, volatile) by unshare(1) and a shell, fresh for each run as
# each dry run's is. Its ratio to the direct run is what overlayfs itself
# costs here; the dry run's ratio to it is what arcturn adds. Left out
# when unshare is missing or the kernel refuses the mount.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${BUILD:-build}
rounds=${1:-40}
src=${CORPUS:-/usr/include}
for t in git cc; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
[ "$build" != build ] || make -s build/arcturn
A=$top/$build/arcturn
out=$(mktemp -d "${BENCH_DIR:-/var/tmp}/arcturn-git.XXXXXX")
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/home" "$out/tmp"
export HOME="$out/home" TMPDIR="$out/tmp" ARCTURN_HOME="$out/state"
cc -O2 -o "$out/alt" bench/alt.c
cp -a "$src" "$out/ws"
cd "$out/ws"
git init -q
git add -A
git -c user.name=bench -c user.email=bench@localhost commit -qm base
echo "/* edited */" >>"$(git ls-files | sed -n 100p)"
G=$(command -v git)
echo "corpus: $(git ls-files | wc -l) files from $src"
"$A" exec -- "$G" status >/dev/null	# first run: state dir, stamps
"$A" exec --dry-run -- "$G" status >/dev/null
"$A" discard --yes >/dev/null 2>&1 || true
cat >"$out/ovl.sh" <<EOF
rm -rf "$out/up" "$out/wk"
mkdir "$out/up" "$out/wk"
mount -t overlay overlay -o "lowerdir=$out/ws,upperdir=$out/up,workdir=$out/wk,userxattr,volatile" "$out/ws" &&
cd "$out/ws" && exec "$G" status
EOF
set -- :: overlayfs unshare -rm sh "$out/ovl.sh"
if ! command -v unshare >/dev/null || ! unshare -rm sh "$out/ovl.sh" >/dev/null 2>&1; then
	echo "bench: no bare overlayfs peer (unshare -rm and mount -t overlay failed)"
	set --
fi
"$out/alt" "$rounds" direct "$G" status \
	:: exec "$A" exec -- "$G" status \
	:: exec-dry-run "$A" exec --dry-run -- "$G" status "$@" >"$out/alt.txt" ||
	{ cat "$out/alt.txt"; exit 1; }
pending=$("$A" session show 2>/dev/null | grep -c '^  [AMDT] ' || true)
"$A" discard --yes >/dev/null 2>&1 || true
awk -v p="$pending" '
	{ med[$1] = $2; r[$1] = $3; printf "  %-14s median %8.3f ms\n", $1, $2 }
	END {
		printf "%-52s %5.2f (target <= 1.05) %s\n", "arcturn exec -- git status / direct",
		    r["exec"], r["exec"] <= 1.05 ? "ok" : "OVER"
		printf "%-52s %5.2f ms\n", "  added per run", med["exec"] - med["direct"]
		printf "%-52s %5.2f (target <= 1.8) %s\n", "arcturn exec --dry-run -- git status / direct",
		    r["exec-dry-run"], r["exec-dry-run"] <= 1.8 ? "ok" : "OVER"
		printf "%-52s %d (want 0: git status changes nothing)\n", "  pending changes after the dry runs", p
		if ("overlayfs" in r) {
			printf "%-52s %5.2f\n", "bare overlayfs, fresh per run, git status / direct", r["overlayfs"]
			printf "%-52s %5.2f (what arcturn adds to overlayfs)\n", "  exec --dry-run / bare overlayfs",
			    r["exec-dry-run"] / r["overlayfs"]
		}
	}' "$out/alt.txt"
