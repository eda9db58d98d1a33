#!/usr/bin/env bats
# The suite's own hygiene: lines whose failure bats cannot see. A test
# runs under `set -e`, which ignores a command negated with `!` and every
# command of an `&&` list but the last, so `! cmd` or `[ a ] && [ b ]` in
# the middle of a test passes whatever it finds. Each check is shown to
# catch what it looks for.

load common

setup() { common_setup; }

HYGIENE_PY='import glob, os, re, sys
bad = []
files = sorted(glob.glob(os.path.join(sys.argv[1], "*.bats")) +
               glob.glob(os.path.join(sys.argv[1], "*.bash")))
if len(files) < 20:
    sys.exit("only %d files under %s" % (len(files), sys.argv[1]))
neg = re.compile(r"^\s*!\s")
andl = re.compile(r"^\s*\[\[? .*\]\]? && \[\[? .*\]\]?\s*$")
for f in files:
    here = None
    for n, line in enumerate(open(f, errors="replace"), 1):
        if here is not None:		# inside a here-document: text
            if line.strip() == here:
                here = None
            continue
        m = re.search(r"<<-?\s*[\x27\"]?(\w+)[\x27\"]?", line)
        if m and not line.lstrip().startswith("#"):
            here = m.group(1)
        name = "%s:%d" % (os.path.basename(f), n)
        if neg.match(line):
            bad.append(name + ": a negated command set -e ignores (run + refute/assert_failure)")
        elif andl.match(line):
            bad.append(name + ": an && list set -e ignores but for its last test (one test a line)")
for b in bad:
    print(b)
print("%d files" % len(files))
sys.exit(1 if bad else 0)'

@test "no test line whose failure set -e ignores" {
	run python3 -c "$HYGIENE_PY" "$BATS_TEST_DIRNAME"
	echo "$output"
	assert_success
	assert_line --regexp '^[0-9]+ files$'
}

@test "the hygiene check finds a negated command and an && list of tests" {
	mkdir "$T/b"
	cp "$BATS_TEST_DIRNAME"/*.bats "$BATS_TEST_DIRNAME"/*.bash "$T/b/"
	printf '@test "x" {\n\t! grep -q x f\n\t[ -e a ] && [ -e b ]\n\tcat <<EOF\n! not code\nEOF\n}\n' >"$T/b/zz.bats"
	run python3 -c "$HYGIENE_PY" "$T/b"
	echo "$output"
	assert_failure
	assert_line --partial "zz.bats:2: a negated command"
	assert_line --partial "zz.bats:3: an && list"
	refute_line --partial "zz.bats:5"
}
