#!/usr/bin/env python3
# Seed corpora for the fuzz targets, made here rather than committed:
#   tests/fuzz/seeds.py TARGET DIR
# writes a few dozen small inputs that reach the interesting paths of
# TARGET into DIR (which the fuzzer then grows).
import hashlib
import os
import sys

target, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
seeds = []

if target == "fuzz_config":
    user = [
        b'{}',
        b'{"dryRun": true, "sandbox": "read-only", "network": "off"}',
        b'{"grants": ["/tmp", "/nonexistent"], "protect": [".git/hooks"]}',
        b'{"sandbox": "off", "requireSandbox": true, "unknown": 1}',
        b'{"dryRun": "yes"}',
        b'{"protect": [1, 2]}',
        b'{"a": {"b": [1, {"c": null}]}, "\\u0000": 1}',
        b'{"dryRun": true,',
        b'\xef\xbb\xbf{"network": "on"}\r\n',
        b'[',
        b'"x"',
        b'{"grants": "/"}',
    ]
    ws = [b'', b'{"dryRun": true}', b'{"sandbox": "off"}',
          b'{"grants": ["/"]}', b'{"protect": ["a", "../b"]}', b'{']
    for u in user:
        seeds.append(u)
        for w in ws:
            seeds.append(u + b'\xff' + w)
elif target == "fuzz_session":
    metas = [
        b'{"version":1,"id":"s","workspace":"/x","created":"2024-01-01T00:00:00Z"}',
        b'{"version":1,"id":"t","workspace":"/x","created":"c"}',
        b'{"version":2}', b'', b'{', b'[]', b'{"version":1,"id":"s"}',
    ]
    for m in metas:
        seeds.append(b'\x00' + m)
    z = b'0' * 64
    h = hashlib.sha256(b'x').hexdigest().encode()
    recs = [b'file 644 ' + h + b'\nf', b'absent 0 ' + z + b'\nf',
            b'link 777 ' + h + b'\nf', b'dir 755 ' + z + b'\nf',
            b'fifo 600 ' + z + b'\nf', b'none 0 ' + z + b'\nf',
            b'none 164 ' + z + b'\nf', b'sock 755 ' + z + b'\nf',
            b'file 644 ' + h[:10], b'file 99999 ' + h + b'\nf',
            b'file 644 ' + h + b'\ng', b'weird 644 ' + h + b'\nf']
    for r in recs:
        seeds.append(b'\x01' + r)
    # programs: op byte (bit 0: real tree; op >> 1 % 11: what), a path
    # (count byte + names), then the op's own bytes
    progs = [
        bytes([2, 2, 0, 0, 0x41, 3, 0, 0, 5, 1, 4, 0x42, 0x61, 0x62, 0x63, 0x64, 0xa4]),
        bytes([7, 6, 1, 0, 2, 0, 0, 0, 3, 1, 2]),
        bytes([12, 18, 0, 1, 20, 1, 0, 10, 1, 1, 3]),
        bytes([3, 0, 1, 6, 0, 3, 1, 0, 3, 0, 2, 8, 0, 0]),
        bytes([4, 10, 0, 1, 2]),
        bytes([5, 12, 1, 0, 1, 0, 2, 0xff]),
        bytes([9, 14, 0, 3, 0, 1, 0, 1, 16, 0, 3]),
        bytes([2, 4, 0, 1, 1, 5, 0, 1, 9, 0, 1]),
    ]
    seeds += progs
elif target == "fuzz_path":
    rels = ["a", "a/b/c/f", "up", "up/x", "abs", "abs/etc", "loop", "in/c",
            "out2", "chain", "nothing", "a/b/back/a", "a/b/etc/passwd",
            "sub/self/self/deep", "sub/deep/../..", "..", "a/../..", "./a/",
            "a//b", "/etc", "", "a/fifo", "x y/../a", "loop2", "in/../../x"]
    for flags in (0, 1, 2, 3):
        for r in rels:
            seeds.append(bytes([flags]) + r.encode())
elif target == "fuzz_apply":
    progs = [
        # nreal, (op, path..., content...)*, then session ops
        bytes([3, 1, 1, 0, 3, 0x61, 0x62, 0x63, 0, 1, 2, 1, 1, 0x78, 2, 1, 3]),
        bytes([4, 0, 1, 6, 1, 2, 6, 0, 2, 0x79, 0x7a, 0, 2, 6, 1, 2, 0x31, 0x32]),
        bytes([2, 2, 1, 4, 3, 1, 5, 0, 1, 4, 1, 0x41, 2, 1, 5]),
        bytes([5, 1, 1, 0, 1, 0x30, 0x11, 1, 1, 1, 0x31, 0, 2, 0, 1, 0,
               3, 1, 2, 0, 2, 1, 1, 0x66, 2, 1, 0, 0, 1, 1, 1, 0x67]),
        bytes([1, 0, 1, 2, 0, 3, 2, 0, 1, 1, 0x68, 2, 1, 2]),
    ]
    seeds += progs
else:
    sys.exit("seeds.py: unknown target " + target)

for i, s in enumerate(seeds):
    with open(os.path.join(out, "seed-%03d" % i), "wb") as f:
        f.write(s)
print(len(seeds))
