"""Lines of a byte stream (a pipe), each with its ``\\n``; the last one may have none."""

from __future__ import annotations

from collections.abc import Iterator

from agentpager.tools.shell.io import Chunks


def iter_lines(chunks: Chunks) -> Iterator[bytes]:
    """Each line with its newline; a last line without one as it is."""
    carry = b""
    for chunk in chunks:
        pieces = (carry + chunk).split(b"\n") if carry else chunk.split(b"\n")
        carry = pieces.pop()
        for piece in pieces:
            yield piece + b"\n"
    if carry:
        yield carry


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
    return bytes(kept[len(kept) - count :]) if count else b""
