#!/usr/bin/env bats
# The layers of src/ (ARCHITECTURE.md): a folder includes only folders below
# it, lowest first lib < policy < diff < apply < checkpoint < session <
# sandbox < cli < mcp; lib includes nothing above it, sandbox never includes
# session or cli, and only cli and mcp include cli. And the module graph (a
# module is a .c with its .h and its *_impl.h; an edge where a file of one
# includes a header of another) has no circle but the ones listed here,
# which are being untangled (issue 24; none is left): a new circle fails,
# and so does a listed one that is gone, so that the list only shrinks.

load common
load docs

setup() {
	common_setup
	docs_setup
}

LAYERS_PY='import collections, glob, os, re, sys
src = sys.argv[1]
order = ["lib", "policy", "diff", "apply", "checkpoint", "session", "sandbox",
         "cli", "mcp"]
rank = {f: i for i, f in enumerate(order)}
known = set(sys.argv[2:])

def module(path):
    m = os.path.splitext(path)[0]
    return m[:-5] if m.endswith("_impl") else m

edges = collections.defaultdict(set)
bad = []
files = glob.glob(os.path.join(src, "*", "*.[chS]"))
if len(files) < 50:
    sys.exit("only %d files under %s" % (len(files), src))
for f in sorted(files):
    rel = os.path.relpath(f, src)
    folder = rel.split("/")[0]
    if folder not in rank:
        bad.append("%s: a folder that is no layer" % rel)
        continue
    for line in open(f, errors="replace"):
        m = re.match(r"\s*#\s*include\s+\"([^\"]+)\"", line)
        if not m or m.group(1).split("/")[0] not in rank:
            continue
        inc = m.group(1)
        to = inc.split("/")[0]
        if (rank[to] > rank[folder] or (folder == "lib" and to != "lib") or
                (folder == "sandbox" and to in ("session", "cli")) or
                (to == "cli" and folder not in ("cli", "mcp"))):
            bad.append("%s includes %s" % (rel, inc))
        if module(inc) != module(rel):
            edges[module(rel)].add(module(inc))

# circles: strongly connected components of more than one module
index, low, stack, on, circles = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop()
            on.discard(w)
            c.append(w)
            if w == v:
                break
        if len(c) > 1:
            circles.append(" ".join(sorted(c)))
for v in sorted(edges):
    if v not in index:
        visit(v)
for c in sorted(set(circles) - known):
    bad.append("a new include circle: " + c)
for c in sorted(known - set(circles)):
    bad.append("no longer a circle (strike it from layers.bats): " + c)
for b in bad:
    print(b)
print("%d files, %d modules, %d circles" % (len(files), len(edges), len(circles)))
sys.exit(1 if bad else 0)'

@test "src/: each folder includes only the layers below it, and no include circle is new" {
	run python3 -c "$LAYERS_PY" "$SRC_DIR"
	echo "$output"
	assert_success
	assert_line --regexp '^[0-9]+ files, [0-9]+ modules, 0 circles$'
}

# The check itself: an upward include, a new circle and a listed circle
# that is gone are found.
@test "the layer check finds an upward include and a new circle" {
	cp -r "$SRC_DIR" "$T/src"
	echo '#include "cli/say.h"' >>"$T/src/lib/mem.c"
	echo '#include "lib/utc.h"' >>"$T/src/lib/hash.c"
	echo '#include "lib/hash.h"' >>"$T/src/lib/utc.c"
	run python3 -c "$LAYERS_PY" "$T/src" "lib/mem lib/path"
	echo "$output"
	assert_failure
	assert_line "lib/mem.c includes cli/say.h"
	assert_line "a new include circle: lib/hash lib/utc"
	assert_line "no longer a circle (strike it from layers.bats): lib/mem lib/path"
}

# Only the front ends speak: below cli/ and mcp/ nothing prints or ends the
# process (a forked child's _exit is no exit of arcturn's). say.c is the
# printer they share.
SPEAK_PY='import glob, os, re, sys
src = sys.argv[1]
call = re.compile(r"(?<![\w.>])(printf|fprintf|vfprintf|puts|fputs|putchar|"
                  r"perror|exit|abort|err|errx|warn|warnx)\s*\(")
bad = []
files = [f for f in glob.glob(os.path.join(src, "*", "*.c"))
         if os.path.relpath(f, src).split("/")[0] not in ("cli", "mcp")]
if len(files) < 40:
    sys.exit("only %d files under %s" % (len(files), src))
for f in sorted(files):
    text = re.sub(r"/\*.*?\*/", "", open(f, errors="replace").read(), flags=re.S)
    text = re.sub(r"\"(\\\\.|[^\"\\\\\n])*\"", "\"\"", text)
    for n, line in enumerate(text.split("\n"), 1):
        m = call.search(line)
        if m:
            bad.append("%s:%d: %s" % (os.path.relpath(f, src), n, m.group(1)))
for b in bad:
    print(b)
print("%d files below cli/ and mcp/" % len(files))
sys.exit(1 if bad else 0)'

@test "below cli/ and mcp/, nothing prints or exits" {
	run python3 -c "$SPEAK_PY" "$SRC_DIR"
	echo "$output"
	assert_success
	assert_line --regexp '^[0-9]+ files below cli/ and mcp/$'
}

@test "the speech check finds a print and an exit below the front ends" {
	cp -r "$SRC_DIR" "$T/src"
	printf 'void f(void) { fprintf(stderr, "x"); }\n' >>"$T/src/lib/mem.c"
	printf 'void g(void) { exit(1); }\n' >>"$T/src/session/plan.c"
	printf 'void h(void) { _exit(1); }\n' >>"$T/src/sandbox/sandbox.c"
	run python3 -c "$SPEAK_PY" "$T/src"
	echo "$output"
	assert_failure
	assert_line --regexp '^lib/mem.c:[0-9]+: fprintf$'
	assert_line --regexp '^session/plan.c:[0-9]+: exit$'
	refute_line --partial 'sandbox/sandbox.c'
}
