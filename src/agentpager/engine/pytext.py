"""Text as the agents written in Python read it: Python's text mode, not the engine's line index.

OpenHands and SWE-agent read files with ``open(path, encoding=...)`` or ``Path.read_text()``:
universal newlines (``\\r\\n`` and a lone ``\\r`` both end a line and read as ``\\n``) and strict
decoding. Their line numbers and their errors follow from that, while a TextFile splits on ``\\n``
alone and replaces what it cannot decode. So their profiles read through these helpers, from the
descriptor the tool opened; the scan keeps to one block of the file in memory, so a file of any size
can be measured.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass

from agentpager.engine.lineindex import iter_bytes
from agentpager.engine.textfile import path_of

# What str.splitlines() ends a line at, besides "\n" (after universal newlines no "\r" is left).
_OTHER_LINE_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_ASCII_LINE_BREAKS = "\v\f\x1c\x1d\x1e"


def text_lines(fd: int, encoding: str) -> Iterator[str]:
    """The lines of the file open as ``fd`` exactly as iterating ``open(path, encoding=encoding)`` gives them.

    Decoding errors are raised as that iteration raises them (their positions count from the chunk
    Python's text layer was decoding), since the agents show the exception's text.
    """
    with open(path_of(fd), encoding=encoding) as file:
        yield from file


@dataclass(frozen=True)
class Utf8Text:
    """What ``Path.read_text()`` (UTF-8, strict) makes of a file, measured without holding it."""

    error: str
    """The UnicodeDecodeError's text (positions in the whole file), or "" when it decodes."""
    segments: int
    """Pieces of ``text.split("\\n")``."""
    splitlines: int
    """``len(text.splitlines())``: lines also end at ``\\f``, ``\\v``, U+2028 and the like."""
    lone_cr: bool
    """Whether a ``\\r`` not followed by ``\\n`` ends a line (a TextFile would not split there)."""


def measure_utf8(fd: int, size: int) -> Utf8Text:
    """Decode the file open as ``fd`` (``size`` bytes) as ``Path.read_text()`` would, a block at a
    time, and count its lines.

    Blocks of plain ASCII are counted as bytes, without being decoded.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    newlines = others = 0
    lone_cr = False
    last = ""
    carry = False  # a "\r" ended the last block: the next one says whether "\n" follows it
    offset = 0
    for chunk in iter_bytes(fd, 0, size):
        offset += len(chunk)
        piece: str | bytes
        if chunk.isascii() and not decoder.getstate()[0]:
            piece, marks = (b"\r" if carry else b"") + chunk, _ASCII_LINE_BREAKS
        else:
            try:
                piece, marks = ("\r" if carry else "") + decoder.decode(chunk), _OTHER_LINE_BREAKS
            except UnicodeDecodeError as error:  # its object: the bytes held back from before, then the chunk
                return Utf8Text(_decode_error(error, offset - len(error.object)), 0, 0, False)
        carry = offset < size and piece[-1:] in ("\r", b"\r")
        if carry:
            piece = piece[:-1]
        crlf, cr = _count(piece, "\r\n"), _count(piece, "\r")
        lone_cr = lone_cr or cr > crlf
        newlines += _count(piece, "\n") + cr - crlf  # "\r\n" reads as one "\n", a lone "\r" as "\n"
        others += sum(_count(piece, mark) for mark in marks)
        if piece:
            end = piece[-1:]
            last = end.decode() if isinstance(end, bytes) else end
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        return Utf8Text(_decode_error(error, offset - len(error.object)), 0, 0, False)
    ends_with_break = last in ("\n", "\r") or (last != "" and last in _OTHER_LINE_BREAKS)
    return Utf8Text("", newlines + 1, newlines + others + (last != "" and not ends_with_break), lone_cr)


def _count(piece: str | bytes, mark: str) -> int:
    return piece.count(mark.encode()) if isinstance(piece, bytes) else piece.count(mark)


def _decode_error(error: UnicodeDecodeError, base: int) -> str:
    """The text of ``error`` with its positions counted from the start of the file."""
    start, end = base + error.start, base + error.end
    if end - start == 1:
        return f"'utf-8' codec can't decode byte 0x{error.object[error.start]:02x} in position {start}: {error.reason}"
    return f"'utf-8' codec can't decode bytes in position {start}-{end - 1}: {error.reason}"
