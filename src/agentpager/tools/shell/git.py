"""``git ls-files``: the paths in the repository's index, read from ``.git/index`` (never changed).

Followed from git's ``Documentation/gitformat-index.txt``: a ``DIRC`` header (version 2, 3 or 4,
the entry count), then each entry's stat data, object id and flags (a second flags word when
``0x4000`` is set) and its path: NUL-terminated and padded to 8 bytes (2, 3), or written as the
length to cut from the previous path (a varint) and the rest (4). Entries are in path order, as
``git ls-files`` prints them, relative to the working directory (only those under it), each quoted
as ``core.quotePath`` (on by default) quotes: in double quotes, with ``\\\\t``, ``\\\\n``, ``\\\\"``,
``\\\\\\\\`` and octal escapes for other control bytes and, unless the repository's config turns it
off, every byte over 0x7f. The index is read a block at a time. Not replayable: other subcommands
and options, conflicted entries (stages), a sparse index, a ``.git`` that is a file (a worktree).
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Iterator

from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Context, Io, open_bytes

_HEADER = struct.Struct(">4sII")
_FIXED = 62
"""Bytes of an entry before its path: ten 32-bit stat fields, a 20-byte id, 16-bit flags."""
_ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v", 0x0C: b"\\f", 0x0D: b"\\r"}


def git(io: Io, args: list[str]) -> Chunks:
    if args != ["ls-files"]:
        raise Unsupported(f"git {' '.join(args[:1]) or 'without a command'}" + (" with options" if args[1:] else ""))
    return _ls_files(io)


def _ls_files(io: Io) -> Chunks:
    ctx = io.ctx
    top, below = _repository(ctx)
    quote_all = _quote_path(io, os.path.join(top, ".git", "config"))
    prefix = os.fsencode("/".join(below))
    with open_bytes(ctx, os.path.join(top, ".git", "index")) as index:
        for path in _paths(index.chunks()):
            if prefix and not path.startswith(prefix + b"/"):
                continue
            shown = path[len(prefix) + 1 :] if prefix else path
            if quote_all is None and not shown.isascii():
                ctx.uncertain = ctx.uncertain or "a user's own git config may turn core.quotePath off"
            yield _quoted(shown, quote_all is not False) + b"\n"


def _repository(ctx: Context) -> tuple[str, list[str]]:
    """The directory with ``.git`` at or above the working directory (within the root), and the
    names from it down to the working directory."""
    root, cwd = ctx.root.path, ctx.cwd
    names = [] if os.path.normpath(cwd) == os.path.normpath(root) else os.path.relpath(cwd, root).split(os.sep)
    for depth in range(len(names), -1, -1):
        directory = os.path.join(root, *names[:depth])
        placed = ctx.open(os.path.join(directory, ".git"))
        placed.close()
        if placed.st is None:
            continue
        if not stat.S_ISDIR(placed.st.st_mode):
            raise Unsupported("a .git that is not a directory (a worktree or a submodule)")
        return directory, names[depth:]
    raise Unsupported("git ls-files outside a repository that the workspace holds")


def _quote_path(io: Io, config: str) -> bool | None:
    """``core.quotePath`` as the repository's config sets it; None when it does not (then git's
    default, on, unless a user's own config, which is not known here, turns it off)."""
    try:
        with open_bytes(io.ctx, config) as file:
            if file.size > 1 << 20:
                raise Unsupported("a .git/config over 1 MiB")
            text = b"".join(file.chunks()).decode("utf-8", "replace")
    except OSError:
        return None
    section = ""
    value = None
    for line in text.splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
            if section.startswith("include"):
                raise Unsupported("a .git/config that includes other files")
        elif section == "core" and "=" in line:
            key, _, setting = line.partition("=")
            if key.strip().lower() == "quotepath":
                value = setting.strip().lower() not in ("false", "no", "off", "0")
    return value


def _quoted(path: bytes, quote_all: bool) -> bytes:
    """As git's ``quote_c_style`` writes a path (unchanged when nothing needs quoting)."""
    special = [byte for byte in path if byte < 0x20 or byte in (0x22, 0x5C, 0x7F) or (quote_all and byte > 0x7F)]
    if not special:
        return path
    out = bytearray(b'"')
    for byte in path:
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes([byte])
        elif byte in _ESCAPES:
            out += _ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7F or (quote_all and byte > 0x7F):
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


class _Reader:
    """The index's bytes, read a block at a time."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.buffer = bytearray()

    def take(self, length: int) -> bytes:
        while len(self.buffer) < length:
            chunk = next(self.chunks, None)
            if chunk is None:
                raise Unsupported("a .git/index cut short")
            self.buffer += chunk
        taken = bytes(self.buffer[:length])
        del self.buffer[:length]
        return taken

    def until_nul(self) -> bytes:
        while (end := self.buffer.find(b"\0")) < 0:
            chunk = next(self.chunks, None)
            if chunk is None:
                raise Unsupported("a .git/index cut short")
            if len(self.buffer) > 1 << 16:
                raise Unsupported("a .git/index path over 64 KiB")
            self.buffer += chunk
        taken = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        return taken

    def varint(self) -> int:
        """git's offset varint (``varint.c``: each continuation adds one before shifting)."""
        byte = self.take(1)[0]
        value = byte & 0x7F
        while byte & 0x80:
            byte = self.take(1)[0]
            value = ((value + 1) << 7) | (byte & 0x7F)
        return value


def _paths(chunks: Iterator[bytes]) -> Iterator[bytes]:
    reader = _Reader(chunks)
    signature, version, count = _HEADER.unpack(reader.take(_HEADER.size))
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise Unsupported(
            f"a .git/index of version {version}" if signature == b"DIRC" else "a .git/index that is not one"
        )
    previous = b""
    for _ in range(count):
        fixed = reader.take(_FIXED)
        mode = struct.unpack(">I", fixed[24:28])[0]
        flags = struct.unpack(">H", fixed[60:62])[0]
        extended = 0
        if flags & 0x4000:
            if version < 3:
                raise Unsupported("a .git/index entry with extended flags in version 2")
            extended = struct.unpack(">H", reader.take(2))[0]
        if flags & 0x3000:
            raise Unsupported("a .git/index with conflicted entries")
        if mode & 0o170000 == 0o040000 or extended & 0x4000 and mode & 0o170000 == 0o040000:
            raise Unsupported("a sparse .git/index (directory entries)")
        if version == 4:
            cut = reader.varint()
            if cut > len(previous):
                raise Unsupported("a .git/index whose paths do not follow one another")
            path = previous[: len(previous) - cut] + reader.until_nul()
        else:
            path = reader.until_nul()
            length = _FIXED + (2 if flags & 0x4000 else 0) + len(path) + 1
            reader.take((8 - length % 8) % 8)  # the NUL padding to 8 bytes
        previous = path
        yield path
