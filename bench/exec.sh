#!/bin/sh
# Cost of `arcturn exec` against its peers, measured in one run in
# alternating rounds and printed as ratios (timings on a shared machine
# are noisy; ratios from one run hold). Not a test: it prints, and exits 1
# only when it could not measure. Needs bwrap, musl-gcc and /usr/bin/time
# (Debian: bubblewrap, musl-tools, time).
#
#   bench/exec.sh [RUNS]
set -eu
cd "$(dirname "$0")/.."
runs=${1:-500}
make -s build/arcturn
for t in bwrap /usr/bin/time musl-gcc cc python3; do
	command -v "$t" >/dev/null || { echo "bench: $t missing" >&2; exit 1; }
done
out=$(mktemp -d /tmp/arcturn-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT
ws=$out/ws
mkdir -p "$ws/.git/hooks" "$out/tmp" "$out/home"
echo '[core]' >"$ws/.git/config"
export HOME="$out/home" TMPDIR="$out/tmp"
printf 'int main(void){return 0;}\n' >"$out/true.c"
musl-gcc -static -O2 -s -o "$out/true" "$out/true.c"
T=$out/true
ALT=$out/alt
cc -O2 -o "$ALT" bench/alt.c
A=$PWD/build/arcturn
H=$PWD/build/landlock-helper
cd "$ws"
"$A" exec -- "$T"	# creates ~/.arcturn and its folders, as any first run

# All commands run in alternating rounds (bench/alt.c: A B C ... A B C,
# who goes first rotating), so that the machine's drift cancels;
# ARCTURN_BACKEND and ARCTURN_UNIX_GATE are set per command by alt itself
# (an env(1) wrapper would add an exec to one side only). The default
# backend here is helper+mount: the IPC and pid namespaces and, where
# Landlock has no RESOLVE_UNIX, the seccomp socket gate are on.
same="--ro-bind / / --dev /dev --bind $ws $ws --bind $TMPDIR $TMPDIR \
--bind $HOME/.arcturn $HOME/.arcturn --bind $ws/.git $ws/.git \
--ro-bind $ws/.git/hooks $ws/.git/hooks \
--ro-bind $ws/.git/config $ws/.git/config \
--ro-bind $HOME/.arcturn/overlays $HOME/.arcturn/overlays \
--ro-bind $HOME/.arcturn/cache $HOME/.arcturn/cache --share-net"
"$A" sandbox status | sed -n 's/^\(backend\|unix_sockets\|proc\):/  &/p'
# shellcheck disable=SC2086
"$ALT" "$runs" direct "$T" \
	:: helper+mount "$A" exec -- "$T" \
	:: -e ARCTURN_UNIX_GATE=seccomp helper+mount-gate "$A" exec -- "$T" \
	:: bwrap-bare bwrap --ro-bind / / --bind "$ws" "$ws" --dev /dev \
	    --share-net "$T" \
	:: -e ARCTURN_BACKEND=helper-landlock helper-landlock "$A" exec -- "$T" \
	:: helper-alone "$H" -w "$ws" -w "$TMPDIR" -w "$HOME/.arcturn" \
	    -w /dev/null -- "$T" \
	:: bwrap-same-policy bwrap $same "$T" \
	:: -e ARCTURN_BACKEND=bwrap arcturn-bwrap "$A" exec -- "$T" \
	>"$out/alt.txt"
# The same start-up against a dynamically linked true (the system's, as a
# user's command mostly is): its own loader's work makes the direct run
# longer, so the ratios are smaller. Issue 28's figures were of this kind
# (its direct run was 0.13 of bwrap's; the static true's is about 0.05).
B=$(command -v true)
case $B in /*) ;; *) B=/bin/true ;; esac
"$ALT" "$runs" direct "$B" \
	:: helper+mount "$A" exec -- "$B" \
	:: bwrap-bare bwrap --ro-bind / / --bind "$ws" "$ws" --dev /dev \
	    --share-net "$B" >"$out/alt-dyn.txt"

rss=$(/usr/bin/time -f %M "$A" exec -- "$T" 2>&1 >/dev/null | tail -1)
cp "$A" "$out/arcturn-stripped"
strip "$out/arcturn-stripped" 2>/dev/null || true
size=$(wc -c <"$out/arcturn-stripped")
hsize=$(wc -c <"$OLDPWD/build/landlock-helper" 2>/dev/null || wc -c <"$(dirname "$A")/landlock-helper")

python3 - "$out" "$rss" "$size" "$hsize" "$B" <<'PY'
import sys
def load(name):
    med, rel = {}, {}
    for line in open(f"{sys.argv[1]}/{name}"):
        k, ms, r = line.split()
        med[k], rel[k] = float(ms), float(r)
    return med, rel
med, rel = load("alt.txt")
dmed, drel = load("alt-dyn.txt")
print("  static true:")
for k, v in med.items():
    print(f"  {k:18s} median {v:7.3f} ms   per-round ratio to direct {rel[k]:6.2f}")
print(f"  {sys.argv[5]} (dynamically linked):")
for k, v in dmed.items():
    print(f"  {k:18s} median {v:7.3f} ms   per-round ratio to direct {drel[k]:6.2f}")
def ratio(a, b, limit, what, aim=None, m=med, r_=rel):
    r = r_[a] if b == "direct" else m[a] / m[b]
    lim = f"target <= {limit}" + (f", aim {aim}" if aim is not None else "")
    print(f"{what:58s} {r:5.2f}  ({lim}) {'ok' if r <= limit else 'OVER'}")
# issue 28's targets, and its aims
ratio("helper+mount", "bwrap-bare", 0.6, "arcturn exec (helper+mount) / bwrap", 0.45)
ratio("helper+mount", "direct", 4.5, "arcturn exec (helper+mount) / direct", 3.5)
ratio("helper+mount", "bwrap-bare", 0.6, "  the same, true dynamically linked / bwrap", 0.45, dmed, drel)
ratio("helper+mount", "direct", 4.5, "  the same, true dynamically linked / direct", 3.5, dmed, drel)
ratio("helper+mount-gate", "bwrap-bare", 0.6, "  the same, seccomp gate forced / bwrap", 0.45)
ratio("helper+mount-gate", "direct", 4.5, "  the same, seccomp gate forced / direct", 3.5)
ratio("helper-landlock", "direct", 2.0, "arcturn exec (helper, Landlock only) / direct")
# not a target: the helper run by hand, no arcturn in front of it; the
# floor for any design that execs a helper before the command
print(f"{'  (floor: landlock-helper alone / direct)':58s} {rel['helper-alone']:5.2f}")
ratio("arcturn-bwrap", "bwrap-same-policy", 1.15, "arcturn exec (bwrap backend) / bwrap with the same binds")
rss, size, hsize = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"{'peak RSS of arcturn exec -- true':58s} {rss} KB (target <= 2048) {'ok' if rss <= 2048 else 'OVER'}")
print(f"{'build/arcturn stripped, helper included':58s} {size // 1024} KB (target <= 512) {'ok' if size <= 512 * 1024 else 'OVER'}")
print(f"{'landlock-helper':58s} {hsize // 1024} KB (target <= 64) {'ok' if hsize <= 64 * 1024 else 'OVER'}")
PY
