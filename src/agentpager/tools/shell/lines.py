"""Lines of a byte stream through the engine's line streamer, and parts of streams by lines or bytes.

A line is its bytes with its ``\\n`` (the last may have none), or a ``LongLine`` past 4 MiB,
never held: written by copying its pieces.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from agentpager.engine.linestream import LongLine, Reread, line_blocks
from agentpager.tools.shell.io import Chunks

Line = bytes | LongLine


def each_line(chunks: Chunks, reread: Reread | None = None, offset: int = 0) -> Iterator[Line]:
    """Each line with its newline (a last line without one as it is), or a LongLine; ``reread``
    reads the stream again (its ``offset`` is where ``chunks`` start in it)."""
    for block in line_blocks(chunks, reread, offset):
        if isinstance(block, LongLine):
            yield block
            continue
        lines = block.split(b"\n")
        last = lines.pop()
        for line in lines:
            yield line + b"\n"
        if last:
            yield last


def length(line: Line) -> int:
    """Its bytes, its newline included (a long line's once read through)."""
    return line.size + line.newline if isinstance(line, LongLine) else len(line)


def ends_line(line: Line) -> bool:
    """Whether a newline ends the line."""
    return line.newline if isinstance(line, LongLine) else line.endswith(b"\n")


def with_newline(line: Line) -> Chunks:
    """A line's bytes, its newline included (a long line's known once its pieces are read)."""
    if not isinstance(line, LongLine):
        yield line
        return
    yield from line.pieces()
    if line.newline:
        yield b"\n"


def written(out: Iterable[Line]) -> Chunks:
    """What was written, in chunks: bytes joined, a long line's pieces copied (plus its newline)."""
    pending: list[bytes] = []
    for item in out:
        if not isinstance(item, LongLine):
            pending.append(item)
            continue
        if pending:
            yield b"".join(pending)
            pending = []
        yield from item.pieces()
    if pending:
        yield b"".join(pending)


def after_newline(data: bytes | bytearray, count: int) -> int:
    """The offset just after the ``count``-th newline of ``data`` (``count`` >= 1, enough newlines)."""
    position = -1
    for _ in range(count):
        position = data.index(b"\n", position + 1)
    return position + 1


def head_lines(chunks: Chunks, count: int) -> Chunks:
    """The first ``count`` lines (none read when there are none to take, as ``head -n 0`` reads none)."""
    remaining = count
    if remaining <= 0:
        return
    for chunk in chunks:
        newlines = chunk.count(b"\n")
        if newlines < remaining:
            remaining -= newlines
            yield chunk
        else:
            yield chunk[: after_newline(chunk, remaining)]
            return


def skip_lines(chunks: Chunks, count: int) -> Chunks:
    """Everything after the first ``count`` lines."""
    remaining = count
    for chunk in chunks:
        if remaining <= 0:
            yield chunk
            continue
        newlines = chunk.count(b"\n")
        if newlines < remaining:
            remaining -= newlines
            continue
        rest = chunk[after_newline(chunk, remaining) :]
        remaining = 0
        if rest:
            yield rest


def tail_start(data: bytes | bytearray, count: int) -> int:
    """Where the last ``count`` lines of ``data`` begin (a last line without a newline counts)."""
    if count <= 0:
        return len(data)
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(count):
        end = data.rfind(b"\n", 0, end)
        if end < 0:
            return 0
    return end + 1


def last_lines(chunks: Chunks, count: int) -> bytes:
    """The last ``count`` lines, keeping only about that much of the stream in memory."""
    kept: list[bytes] = []
    newlines = 0
    for chunk in chunks:
        kept.append(chunk)
        newlines += chunk.count(b"\n")
        while len(kept) > 1 and newlines - kept[0].count(b"\n") > count:
            newlines -= kept.pop(0).count(b"\n")
    data = b"".join(kept)
    return data[tail_start(data, count) :]


def all_but_last_lines(chunks: Chunks, count: int) -> Chunks:
    """Every line but the last ``count`` (a last line without a newline counts)."""
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        safe = pending.count(b"\n") - count
        if safe > 0:
            cut = after_newline(pending, safe)
            yield bytes(pending[:cut])
            del pending[:cut]
    cut = tail_start(pending, count)
    if cut:
        yield bytes(pending[:cut])


def all_but_last_bytes(chunks: Chunks, count: int) -> Chunks:
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        if len(pending) > count:
            cut = len(pending) - count
            yield bytes(pending[:cut])
            del pending[:cut]


def head_bytes(chunks: Chunks, count: int) -> Chunks:
    """The first ``count`` bytes, reading no further."""
    remaining = count
    if remaining <= 0:
        return
    for chunk in chunks:
        yield chunk[:remaining]
        remaining -= len(chunk)
        if remaining <= 0:
            return


def skip_bytes(chunks: Chunks, count: int) -> Chunks:
    remaining = count
    for chunk in chunks:
        if remaining >= len(chunk):
            remaining -= len(chunk)
            continue
        yield chunk[remaining:]
        remaining = 0


def last_bytes(chunks: Chunks, count: int) -> bytes:
    kept = bytearray()
    for chunk in chunks:
        kept += chunk
        if len(kept) > 2 * count + (1 << 16):
            del kept[: len(kept) - count]
    return bytes(kept[max(0, len(kept) - count) :]) if count else b""
