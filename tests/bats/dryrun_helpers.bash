# Helpers for tests that build a session's upper/ by hand, as overlayfs
# would under `exec --dry-run`. arcturn never applies a change without a
# record of what it was made on (session.h: base records), so such a test
# records the base of each path it changes, as capture does.

# record_base SESSION_DIR PATH...: write the base record of each workspace
# path (relative to the cwd, the workspace root) as it is now: its kind,
# mode and content hash, or "absent". A directory's whole tree is recorded
# (a whiteout over it deletes all of it). An existing record stays.
record_base() {
	python3 - "$@" <<'PY'
import hashlib, os, stat, sys

sd = sys.argv[1]

def put(p):
    name = hashlib.sha256(p.encode()).hexdigest()
    rec = os.path.join(sd, "base", name)
    if os.path.lexists(rec):
        return
    sha = "0" * 64
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        kind, mode = "absent", 0
    else:
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISREG(st.st_mode):
            kind = "file"
            sha = hashlib.sha256(open(p, "rb").read()).hexdigest()
        elif stat.S_ISLNK(st.st_mode):
            kind = "link"
            sha = hashlib.sha256(os.readlink(p).encode()).hexdigest()
        elif stat.S_ISDIR(st.st_mode):
            kind = "dir"
        elif stat.S_ISFIFO(st.st_mode):
            kind = "fifo"
        elif stat.S_ISSOCK(st.st_mode):
            kind = "sock"
        elif stat.S_ISCHR(st.st_mode):
            kind = "chr"
        else:
            kind = "blk"
    with open(rec, "wb") as f:
        f.write(("%s %o %s\n" % (kind, mode, sha)).encode() + p.encode())
    if os.path.isdir(p) and not os.path.islink(p):
        for e in sorted(os.listdir(p)):
            put(p + "/" + e)

for p in sys.argv[2:]:
    put(p)
PY
}

