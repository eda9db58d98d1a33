"""Build the wheel of a one-module package, tinypkg 1.0, into DIR and
print its file name (tests/bats/compat.bats serves it from a simple
index). A wheel is a zip with a dist-info folder; no build backend is
needed, so nothing is fetched.

    mkwheel.py DIR
"""
import base64
import hashlib
import os
import sys
import zipfile

NAME, VERSION = "tinypkg", "1.0"
INFO = "%s-%s.dist-info" % (NAME, VERSION)
files = {
    NAME + "/__init__.py": 'GREETING = "hello from tinypkg"\n',
    INFO + "/METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                        % (NAME, VERSION),
    INFO + "/WHEEL": "Wheel-Version: 1.0\nGenerator: mkwheel\n"
                     "Root-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
for path, text in files.items():
    digest = hashlib.sha256(text.encode()).digest()
    record += "%s,sha256=%s,%d\n" % (
        path, base64.urlsafe_b64encode(digest).rstrip(b"=").decode(),
        len(text.encode()))
files[INFO + "/RECORD"] = record + INFO + "/RECORD,,\n"
whl = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
with zipfile.ZipFile(os.path.join(sys.argv[1], whl), "w") as z:
    for path, text in files.items():
        z.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)
print(whl)
