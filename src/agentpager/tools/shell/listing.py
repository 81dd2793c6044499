"""GNU coreutils 9 ``ls`` writing to a pipe: one name a line, ``-1``, ``-a``, ``-A``, ``-R``.

Names are sorted by their bytes (C.UTF-8 collation is code-point order) and written raw, as ``ls``
does when stdout is not a terminal. File operands come first, then each directory, under a
``name:`` heading when there is more than one operand (always with ``-R``, which then lists each
subdirectory, in name order, after the directory that holds it; symbolic links are not entered).
Subdirectories are opened from their parent's descriptor, never by a path: nothing outside the
root is reached. ``-l`` and the other long formats show owners and times that a replay cannot
know: Unsupported.
"""

from __future__ import annotations

import os
import stat

from agentpager.tools.paths import Placed
from agentpager.tools.shell.io import Chunks, Io, options, quote, stat_of, strerror

_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def ls(io: Io, args: list[str]) -> Chunks:
    found, operands = options("ls", args, "1aAR", ["all", "almost-all", "recursive"])
    flags = {option for option, _ in found}
    show = "all" if flags & {"-a", "--all"} else "almost" if flags & {"-A", "--almost-all"} else "visible"
    return _ls(io, operands or ["."], show, bool(flags & {"-R", "--recursive"}))


def _ls(io: Io, operands: list[str], show: str, recursive: bool) -> Chunks:
    files: list[str] = []
    directories: list[tuple[str, Placed]] = []
    pending: list[tuple[str, int | None, int]] = []
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
        if out:
            yield b"\n".join(out) + b"\n"
        headings = len(operands) > 1 or recursive
        for index, (name, placed) in enumerate(sorted(directories, key=lambda entry: _encoded(entry[0]))):
            pending.append((name, placed.fd, placed.error))
            placed.fd = None  # closed once listed
            first = not out and not index
            while pending:
                shown, fd, failure = pending.pop()
                listed, below = _listed(io, shown, fd, failure, show, recursive)
                yield (b"" if first else b"\n") + (_encoded(shown) + b":\n" if headings else b"") + listed
                first = False
                pending += reversed(below)
    finally:
        for _, placed in directories:
            placed.close()
        for _, fd, _ in pending:
            if fd is not None:
                os.close(fd)


def _listed(
    io: Io, shown: str, fd: int | None, failure: int, show: str, recursive: bool
) -> tuple[bytes, list[tuple[str, int | None, int]]]:
    """One directory's names (its descriptor closed), and (``recursive``) its subdirectories opened
    from it, in name order."""
    try:
        if fd is None:
            raise OSError(failure, os.strerror(failure))
        with os.scandir(fd) as scanned:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in scanned]
        return _names(shown, fd, entries, show, recursive)
    except OSError as error:
        io.error(f"cannot open directory {quote(shown)}: {strerror(error)}")
        io.status = 2
        return b"", []
    finally:
        if fd is not None:
            os.close(fd)


def _names(
    shown: str, fd: int, entries: list[tuple[str, bool]], show: str, recursive: bool
) -> tuple[bytes, list[tuple[str, int | None, int]]]:
    if show == "all":
        entries += [(".", False), ("..", False)]
    elif show == "visible":
        entries = [entry for entry in entries if not entry[0].startswith(".")]
    entries.sort(key=lambda entry: _encoded(entry[0]))
    listed = b"".join(_encoded(name) + b"\n" for name, _ in entries)
    below: list[tuple[str, int | None, int]] = []
    for name, is_dir in entries if recursive else []:
        if not is_dir or name in (".", ".."):
            continue
        path = shown + name if shown.endswith("/") else f"{shown}/{name}"
        try:
            below.append((path, os.open(name, _OPEN_DIRECTORY, dir_fd=fd), 0))
        except OSError as failure:
            below.append((path, None, failure.errno or 0))
    return listed, below


def _encoded(name: str) -> bytes:
    return os.fsencode(name)
