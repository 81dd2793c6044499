"""GNU coreutils 9 ``ls`` writing to a pipe: one name a line, ``-1``, ``-a``, ``-A``.

Names are sorted by their bytes (C.UTF-8 collation is code-point order) and written raw, as ``ls``
does when stdout is not a terminal. File operands come first, then each directory, under a
``name:`` heading when there is more than one operand. ``-l`` and the other long formats show
owners and times that a replay cannot know: Unsupported.
"""

from __future__ import annotations

import os
import stat

from agentpager.tools.paths import Placed
from agentpager.tools.shell.io import Chunks, Io, options, quote, stat_of, strerror


def ls(io: Io, args: list[str]) -> Chunks:
    found, operands = options("ls", args, "1aA", ["all", "almost-all"])
    flags = {option for option, _ in found}
    show = "all" if flags & {"-a", "--all"} else "almost" if flags & {"-A", "--almost-all"} else "visible"
    return _ls(io, operands or ["."], show)


def _ls(io: Io, operands: list[str], show: str) -> Chunks:
    files: list[str] = []
    directories: list[tuple[str, Placed]] = []
    try:
        for name in operands:
            placed = io.ctx.open(name)
            try:
                st = stat_of(placed)
            except OSError as error:
                placed.close()
                io.error(f"cannot access {quote(name)}: {strerror(error)}")
                io.status = 2
                continue
            if stat.S_ISDIR(st.st_mode):
                directories.append((name, placed))
            else:
                placed.close()
                files.append(name)
        out = [_encoded(name) for name in sorted(files, key=_encoded)]
        headings = len(operands) > 1
        for index, (name, placed) in enumerate(sorted(directories, key=lambda entry: _encoded(entry[0]))):
            if out or index:
                out.append(b"")
            if headings:
                out.append(_encoded(name) + b":")
            try:
                if placed.fd is None:
                    raise OSError(placed.error, os.strerror(placed.error))
                entries = os.listdir(placed.fd)
            except OSError as error:
                io.error(f"cannot open directory {quote(name)}: {strerror(error)}")
                io.status = 2
                continue
            if show == "all":
                entries += [".", ".."]
            elif show == "visible":
                entries = [entry for entry in entries if not entry.startswith(".")]
            out.extend(sorted(map(_encoded, entries)))
    finally:
        for _, placed in directories:
            placed.close()
    if out:
        yield b"\n".join(out) + b"\n"


def _encoded(name: str) -> bytes:
    return os.fsencode(name)
