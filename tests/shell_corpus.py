"""A small workspace of awkward files for the shell-read tests: CRLF, no final newline, empty, invalid
UTF-8, a BOM, long lines, a file over a MiB, names with spaces, directories."""

from __future__ import annotations

from pathlib import Path

FILES: dict[str, bytes] = {
    "plain.txt": b"".join(b"line %d alpha beta%s\n" % (n, b" gamma" if n % 3 == 0 else b"") for n in range(1, 31)),
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "nonl.txt": b"first\nsecond\nlast",
    "empty.txt": b"",
    "newline.txt": b"\n",
    "invalid.txt": b"ok abc\n\xff\xfe bad abc\nabc ok\n\xc3\nlast abc\n",
    "bom.txt": b"\xef\xbb\xbfhello\nworld\n",
    "long.txt": b"x" * 100_000 + b" needle\nshort\n" + b"y" * 5000 + b"\n",
    "code.py": (
        b"import os\n\n\nclass Thing:\n    def __init__(self):\n        self.x = 1\n\n"
        b"    def run(self):\n        return os.getcwd()\n\n\ndef main():\n    Thing().run()\n"
    ),
    "utf8.txt": "héllo wörld\n日本語 テキスト\nnbsp\u00a0here\nTab\there\n".encode(),
    "space name.txt": b"spaced out\n",
    "sub/inner.txt": b"inner 1\ninner 2\n",
    "sub/.hidden": b"hidden\n",
    "big.txt": b"".join(b"row %06d %s\n" % (n, b"match" if n % 997 == 0 else b"other") for n in range(1, 70_001)),
    "section.txt": b"a\n\\:\\:\nb\n\\:\nc\n",
}


def build(root: Path) -> Path:
    for name, data in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "emptydir").mkdir(exist_ok=True)
    return root
