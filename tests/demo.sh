#!/bin/sh
# A short tour: a confined command writes inside a throw-away workspace and
# is refused outside it, a dry run is reviewed and applied, then
# `arcturn sandbox status`.
#
#   tests/demo.sh [ARCTURN]
set -u
arcturn=$(cd "$(dirname "${1:-build/arcturn}")" && pwd)/$(basename "${1:-build/arcturn}")
demo=$(mktemp -d "${TMPDIR:-/tmp}/arcturn-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
mkdir -p "$demo/workspace" "$demo/elsewhere" "$demo/tmp" "$demo/home"
export TMPDIR="$demo/tmp" HOME="$demo/home"
cd "$demo/workspace" || exit 1

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

echo "arcturn demo: workspace $demo/workspace"
step "arcturn exec -- sh -c 'echo hello > notes.txt && cat notes.txt'"
"$arcturn" exec -- sh -c 'echo hello > notes.txt && cat notes.txt'
echo "exit status $?"

step "arcturn exec -- sh -c 'echo oops > $demo/elsewhere/file'"
"$arcturn" exec -- sh -c "echo oops > '$demo/elsewhere/file'"
echo "exit status $? (refused: the file is outside the workspace)"
if [ -e "$demo/elsewhere/file" ]; then
	echo "demo: FAILED: the write outside the workspace landed" >&2
	exit 1
fi

step "arcturn exec -- rm -rf $demo/elsewhere"
"$arcturn" exec -- rm -rf "$demo/elsewhere"
echo "exit status $?; $demo/elsewhere still exists: $([ -d "$demo/elsewhere" ] && echo yes || echo no)"

step "arcturn exec --dry-run -- sh -c 'echo draft > plan.txt; rm notes.txt'"
if "$arcturn" exec --dry-run -- sh -c 'echo draft > plan.txt; rm notes.txt'; then
	echo "the workspace is untouched: $(ls)"
	step "arcturn diff"
	"$arcturn" diff
	step "arcturn apply --yes"
	"$arcturn" apply --yes
	echo "now: $(ls)"
else
	echo "(dry-run exec is not available here; see the status below)"
fi

step "arcturn sandbox status"
"$arcturn" sandbox status
