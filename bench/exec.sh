#!/bin/sh
# Cost of `arcturn exec` against its peers, measured in one run and printed
# as ratios of medians (timings on a shared machine are noisy; ratios from
# one run hold). Not a test: it prints, and exits 1 only when it could not
# measure. Needs hyperfine, bwrap and /usr/bin/time (Debian: hyperfine,
# bubblewrap, time).
#
#   bench/exec.sh [RUNS]
set -eu
cd "$(dirname "$0")/.."
runs=${1:-1000}
make -s build/arcturn
for t in hyperfine bwrap /usr/bin/time musl-gcc python3; do
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
A=$PWD/build/arcturn
H=$PWD/build/landlock-helper
cd "$ws"
"$A" exec -- "$T"	# creates ~/.arcturn and its folders, as any first run

# Each comparison is one hyperfine invocation, so both sides share the
# machine's state; ARCTURN_BACKEND is set for the whole invocation (hyperfine
# has no per-command environment, and an env(1) wrapper would add its own
# exec to one side only).
same="--ro-bind / / --dev /dev --bind $ws $ws --bind $TMPDIR $TMPDIR \
--bind $HOME/.arcturn $HOME/.arcturn --bind $ws/.git $ws/.git \
--ro-bind $ws/.git/hooks $ws/.git/hooks \
--ro-bind $ws/.git/config $ws/.git/config \
--ro-bind $HOME/.arcturn/overlays $HOME/.arcturn/overlays \
--ro-bind $HOME/.arcturn/cache $HOME/.arcturn/cache --share-net"
hf() {	# json-name hyperfine-args...
	j=$1
	shift
	hyperfine -N -w 50 -r "$runs" --export-json "$out/$j.json" "$@" \
		>"$out/$j.txt" 2>&1 || { cat "$out/$j.txt"; exit 1; }
}
hf mount -n bwrap-bare "bwrap --ro-bind / / --bind $ws $ws --dev /dev --share-net $T" \
	-n helper+mount "$A exec -- $T"
ARCTURN_BACKEND=helper-landlock hf landlock -n direct "$T" \
	-n helper-landlock "$A exec -- $T" \
	-n helper-alone "$H -w $ws -w $TMPDIR -w $HOME/.arcturn -w /dev/null -- $T"
# shellcheck disable=SC2086
ARCTURN_BACKEND=bwrap hf bwrap -n bwrap-same-policy "bwrap $same $T" \
	-n arcturn-bwrap "$A exec -- $T"

rss=$(/usr/bin/time -f %M "$A" exec -- "$T" 2>&1 >/dev/null | tail -1)
cp "$A" "$out/arcturn-stripped"
strip "$out/arcturn-stripped" 2>/dev/null || true
size=$(wc -c <"$out/arcturn-stripped")
hsize=$(wc -c <"$OLDPWD/build/landlock-helper" 2>/dev/null || wc -c <"$(dirname "$A")/landlock-helper")

python3 - "$out" "$rss" "$size" "$hsize" <<'PY'
import json, sys
res = {}
for j in ("mount", "landlock", "bwrap"):
    for r in json.load(open(f"{sys.argv[1]}/{j}.json"))["results"]:
        res[r["command"]] = r
med = {k: v["median"] * 1e3 for k, v in res.items()}
for k, v in med.items():
    print(f"  {k:18s} median {v:7.3f} ms")
def ratio(a, b, limit, what):
    r = med[a] / med[b]
    print(f"{what:58s} {r:5.2f}  (target <= {limit}) {'ok' if r <= limit else 'OVER'}")
ratio("helper+mount", "bwrap-bare", 0.35, "arcturn exec (helper+mount) / bwrap")
ratio("helper-landlock", "direct", 2.0, "arcturn exec (helper, Landlock only) / direct")
# not a target: the helper run by hand, no arcturn in front of it; the
# floor for any design that execs a helper before the command
r = med["helper-alone"] / med["direct"]
print(f"{'  (floor: landlock-helper alone / direct)':58s} {r:5.2f}")
ratio("arcturn-bwrap", "bwrap-same-policy", 1.15, "arcturn exec (bwrap backend) / bwrap with the same binds")
rss, size, hsize = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"{'peak RSS of arcturn exec -- true':58s} {rss} KB (target <= 2048) {'ok' if rss <= 2048 else 'OVER'}")
print(f"{'build/arcturn stripped, helper included':58s} {size // 1024} KB (target <= 400) {'ok' if size <= 400 * 1024 else 'OVER'}")
print(f"{'landlock-helper':58s} {hsize // 1024} KB (target <= 64) {'ok' if hsize <= 64 * 1024 else 'OVER'}")
PY
