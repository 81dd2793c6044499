"""A corpus of awkward files for the Python agents' profiles and their oracles."""

from __future__ import annotations

import os
import random
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4

FILES: dict[str, bytes] = {
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "no_final_newline.txt": b"alpha\nbeta",
    "empty.txt": b"",
    "only_newline.txt": b"\n",
    "lone_cr.txt": b"first\rsecond\rthird\n",
    "tabs.txt": b"\tindented\n\t\tdeeper\nplain\ttab\n",
    "latin1.txt": "caf\xe9 na\xefve\nsecond line\n".encode("latin-1"),
    "latin1_long.txt": ("d\xe9j\xe0 vu, r\xe9sum\xe9 " * 30 + "\n").encode("latin-1") * 40,
    "utf8.txt": "héllo wörld\n€ and 日本語\n".encode(),
    "bom.txt": "\ufeffwith a byte-order mark\nnext\n".encode(),
    "separators.txt": "page one\fstill one\nline two\u2028after a separator\nvertical\vtab\n".encode(),
    "long_lines.txt": b"".join(bytes([97 + n]) * 2600 + b"\n" for n in range(3)),
    "wide.txt": b"".join(b"w" * 1100 + b"\n" for _ in range(120)),
    "numbered.txt": "".join(f"line {n}: {'text ' * (n % 7)}\n" for n in range(1, 2601)).encode(),
    "many_short.txt": b"".join(b"%d\n" % n for n in range(20000)),
    "ansi.txt": b"\x1b[31mred\x1b[0m plain\n",
    "nul.txt": b"before\x00after\n",
    "utf16.txt": "hello\nworld\n".encode("utf-16"),
    "image.png": PNG,
    "data.bin": random.Random(7).randbytes(3000),
    "dir/a.txt": b"a\n",
    "dir/b.py": b"print('b')\n",
    "dir/.hidden": b"hidden\n",
    "dir/sub/c.txt": b"c\n",
    "dir/sub/.also_hidden": b"\n",
    "dir/sub/deeper/d.txt": b"d\n",
    "dir/zeta/e.txt": b"e\n",
    "dir/.git/config": b"[core]\n",
}


def make_corpus(root: Path, big: bool = False) -> Path:
    """Write the corpus under ``root`` (with a file over 10 MB when ``big``); return ``root``."""
    for name, data in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "dir" / "empty_dir").mkdir(exist_ok=True)
    os.symlink("numbered.txt", root / "link.txt")
    os.symlink("dir", root / "dir_link")
    if big:
        (root / "over_10mb.txt").write_bytes(b"0123456789abcdef" * (11 * 65536 + 1))
    return root


VIEW_RANGES: list[list[int] | None] = [None, [1, 1], [2, -1], [1, 5000], [3, 2], [0, 1], [1], [2, 3], [2600, 2600]]
OPENHANDS_PATHS = [*FILES, "dir", "dir/sub", "dir_link", "link.txt", "missing.txt", "."]
"""Paths relative to the corpus; OpenHands is given them as absolute paths."""

SWE_AGENT_SESSIONS: list[list[tuple[str, ...]]] = [
    [
        ("goto", "5"),
        ("scroll_down",),
        ("open", "numbered.txt"),
        ("scroll_down",),
        ("scroll_down",),
        ("scroll_up",),
        ("goto", "2000"),
        ("open", "numbered.txt"),
        ("open", "numbered.txt"),
        ("open", "crlf.txt"),
        ("open", "numbered.txt"),
        ("goto", "99999"),
        ("goto", "2600"),
        ("scroll_down",),
        ("open", "missing.txt"),
        ("open", "dir"),
        ("open", "numbered.txt", "0"),
        ("open", "numbered.txt", "99999"),
        ("open", "numbered.txt", "1300"),
        ("open", "./dir/../numbered.txt", "5"),
        ("open", "link.txt", "40"),
        ("goto", "1"),
    ],
    *[[("open", name), ("scroll_down",), ("goto", "2"), ("open", name, "3")] for name in FILES],
    [("open", "lone_cr.txt"), ("open", "separators.txt", "2"), ("open", "empty.txt", "5"), ("goto", "1")],
    [("open", "only_newline.txt"), ("open", "wide.txt", "50"), ("scroll_up",)],
]
"""Commands as SWE-agent's shell runs them, one session (its state kept) per list."""


def swe_agent_arguments(command: tuple[str, ...]) -> dict[str, object]:
    """A command's words as the profile's tool arguments."""
    name, *words = command
    if name == "open":
        return {"path": words[0], **({"line_number": int(words[1])} if len(words) > 1 else {})}
    if name == "goto":
        return {"line_number": int(words[0])}
    return {}
