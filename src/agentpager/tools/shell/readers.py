"""``cat``, ``head``, ``tail``, ``nl`` and bash's ``echo``, as GNU coreutils 9 prints them.

Each program parses its options at once (Unsupported for anything it does not emulate) and returns
a generator of its stdout bytes; errors go to ``io`` as they happen, between the chunks they follow.
Regular files are windowed through the line index (``head -n`` and ``tail -n +N`` read only what
they print, ``tail -n`` reads backwards from the end); pipes are streamed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agentpager.engine.linestream import LongLine, line_blocks, split_lines
from agentpager.tools.shell import lines
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import (
    Chunks,
    Io,
    ReadError,
    Source,
    options,
    parse_count,
    quote,
    quote_if_needed,
    reading,
    strerror,
)

BATCH_BYTES = 1 << 16


def batched(pieces: Iterable[bytes]) -> Chunks:
    """Small pieces (lines) joined into chunks of about BATCH_BYTES."""
    batch: list[bytes] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= BATCH_BYTES:
            yield b"".join(batch)
            batch, size = [], 0
    if batch:
        yield b"".join(batch)


# -- cat ------------------------------------------------------------------------------------------


def cat(io: Io, args: list[str]) -> Chunks:
    found, names = options("cat", args, "n", ["number"])
    return _cat(io, names or ["-"], number=bool(found))


@dataclass
class _Numbering:
    next: int = 1
    at_line_start: bool = True


def _cat(io: Io, names: list[str], number: bool) -> Chunks:
    numbering = _Numbering()
    for name in names:
        try:
            with reading(io, name) as source:
                chunks = source.chunks()
                yield from batched(_numbered(chunks, numbering)) if number else chunks
        except OSError as error:
            io.error(f"{quote_if_needed(name)}: {strerror(error)}")
            io.status = 1


def _numbered(chunks: Chunks, numbering: _Numbering) -> Iterable[bytes]:
    """``cat -n``: a number before each line that has a byte, counted across files (a file's last
    line without a newline goes on in the next file)."""
    for block in line_blocks(chunks):
        if isinstance(block, LongLine):
            if numbering.at_line_start:
                yield b"%6d\t" % numbering.next
                numbering.next += 1
            yield from lines.with_newline(block)
            numbering.at_line_start = block.newline
            continue
        pieces = block.split(b"\n")
        last = pieces.pop()  # empty when the block ends with a newline
        if pieces and not numbering.at_line_start:
            yield pieces.pop(0) + b"\n"
            numbering.at_line_start = True
        yield from numbered_lines(b"%6d\t%s\n", pieces, numbering.next)
        numbering.next += len(pieces)
        if last:
            if numbering.at_line_start:
                yield b"%6d\t" % numbering.next
                numbering.next += 1
            yield last
            numbering.at_line_start = False


# -- head and tail --------------------------------------------------------------------------------

_OBSOLETE_COUNT = re.compile(r"-(\d+)")


@dataclass
class _Window:
    """What part of each file ``head`` or ``tail`` prints."""

    bytes: bool
    count: int
    from_start: bool
    """head: ``-n -N`` (all but the last N); tail: ``-n +N`` (from the N-th)."""


def _window_options(program: str, args: list[str]) -> tuple[_Window, bool | None, list[str]]:
    if args and _OBSOLETE_COUNT.fullmatch(args[0]):
        args = ["-n", args[0][1:], *args[1:]]
    found, names = options(program, args, "n:c:qv", ["lines=", "bytes=", "quiet", "silent", "verbose"])
    window = _Window(False, 10, False)
    headers: bool | None = None
    for option, value in found:
        if option in ("-q", "--quiet", "--silent"):
            headers = False
        elif option in ("-v", "--verbose"):
            headers = True
        else:
            sign = value[:1] if value[:1] in ("+", "-") else ""
            if program == "head" and sign == "+":
                raise Unsupported(f"head: the count {value!r}")
            count = parse_count(program, value[len(sign) :])
            from_start = sign == ("-" if program == "head" else "+")
            window = _Window(option in ("-c", "--bytes"), count, from_start)
    return window, headers, names or ["-"]


def head(io: Io, args: list[str]) -> Chunks:
    window, headers, names = _window_options("head", args)
    return _headed(io, names, headers, lambda source: _head(source, window))


def tail(io: Io, args: list[str]) -> Chunks:
    if args and re.fullmatch(r"\+\d+", args[0]):
        args = ["-n", args[0], *args[1:]]
    window, headers, names = _window_options("tail", args)
    if window.count == 0 and not window.from_start:
        return iter(())  # tail opens nothing when it will print nothing
    return _headed(io, names, headers, lambda source: _tail(source, window))


def _headed(io: Io, names: list[str], headers: bool | None, part: Callable[[Source], Chunks]) -> Chunks:
    """Each file's part, under ``==> name <==`` headers when there are several files (or ``-v``)."""
    show_headers = len(names) > 1 if headers is None else headers
    first = True
    for name in names:
        try:
            with reading(io, name) as source:
                if show_headers:
                    shown = "standard input" if name == "-" else name
                    yield f"{'' if first else chr(10)}==> {shown} <==\n".encode("utf-8", "surrogateescape")
                    first = False
                yield from part(source)
        except ReadError as error:
            if show_headers:
                yield f"{'' if first else chr(10)}==> {name} <==\n".encode("utf-8", "surrogateescape")
                first = False
            io.error(f"error reading {quote(name)}: {strerror(error)}")
            io.status = 1
        except OSError as error:
            io.error(f"cannot open {quote(name)} for reading: {strerror(error)}")
            io.status = 1


def _head(source: Source, window: _Window) -> Chunks:
    file, count = source.file, window.count
    if file is not None:
        if window.bytes:
            end = max(0, file.size - count) if window.from_start else min(count, file.size)
        else:
            end = file.tail_start(count) if window.from_start else file.line_start(count + 1)
        return file.chunks(0, end)
    chunks = source.chunks()
    if window.bytes:
        return lines.all_but_last_bytes(chunks, count) if window.from_start else lines.head_bytes(chunks, count)
    return lines.all_but_last_lines(chunks, count) if window.from_start else lines.head_lines(chunks, count)


def _tail(source: Source, window: _Window) -> Chunks:
    file, count = source.file, window.count
    if file is not None:
        if window.bytes:
            start = max(0, count - 1) if window.from_start else max(0, file.size - count)
        else:
            start = file.line_start(max(count, 1)) if window.from_start else file.tail_start(count)
        return file.chunks(min(start, file.size))
    chunks = source.chunks()
    if window.from_start:
        skip = max(count - 1, 0)
        return lines.skip_bytes(chunks, skip) if window.bytes else lines.skip_lines(chunks, skip)
    return iter([lines.last_bytes(chunks, count) if window.bytes else lines.last_lines(chunks, count)])


# -- nl -------------------------------------------------------------------------------------------

_SECTION_DELIMITERS = (b"\\:\\:\\:", b"\\:\\:", b"\\:")


@dataclass
class _NlFormat:
    style: str = "t"
    width: int = 6
    separator: bytes = b"\t"
    start: int = 1
    increment: int = 1
    justify: str = "rn"

    def number(self, value: int) -> bytes:
        text = {"rn": "%*d", "ln": "%-*d", "rz": "%0*d"}[self.justify] % (self.width, value)
        return text.encode() + self.separator


def nl(io: Io, args: list[str]) -> Chunks:
    found, names = options("nl", args, "b:w:s:v:i:n:")
    style = _NlFormat()
    for option, value in found:
        if option == "-b":
            if value not in ("a", "t", "n"):
                raise Unsupported(f"nl -b {value}")
            style.style = value
        elif option == "-n":
            if value not in ("ln", "rn", "rz"):
                raise Unsupported(f"nl -n {value}")
            style.justify = value
        elif option == "-s":
            style.separator = value.encode("utf-8", "surrogateescape")
        else:
            count = parse_count("nl", value)
            if option == "-w" and count < 1:
                raise Unsupported("nl -w 0")
            setattr(style, {"-w": "width", "-v": "start", "-i": "increment"}[option], count)
    return _nl(io, names or ["-"], style)


def _nl(io: Io, names: list[str], style: _NlFormat) -> Chunks:
    number = [style.start]
    for name in names:
        try:
            with reading(io, name) as source:
                yield from _nl_file(source.chunks(), style, number)
        except OSError as error:
            io.error(f"{quote_if_needed(name)}: {strerror(error)}")
            io.status = 1


def _nl_file(chunks: Chunks, style: _NlFormat, number: list[int]) -> Chunks:
    """Numbered lines a block at a time; ``-ba`` without section delimiters is formatted in bulk.
    nl ends every line with a newline, the last one too."""
    body = [True]
    for block in line_blocks(chunks):
        if isinstance(block, LongLine):  # never a section delimiter, never empty
            yield from _nl_lines([b""], style, number, body, numbered=style.style != "n")
            yield from lines.written([block, b"\n"])
            continue
        pieces = split_lines(block)
        if style.style == "a" and body[0] and b"\\:" not in block:
            yield from _numbered_all(pieces, style, number)
        else:
            yield b"".join(_nl_lines(pieces, style, number, body))


def _numbered_all(pieces: list[bytes], style: _NlFormat, number: list[int]) -> Chunks:
    template = {"rn": "%{w}d", "ln": "%-{w}d", "rz": "%0{w}d"}[style.justify].format(w=style.width).encode()
    template += style.separator.replace(b"%", b"%%") + b"%s\n"
    first = number[0]
    number[0] += style.increment * len(pieces)
    return numbered_lines(template, pieces, first, style.increment)


NUMBERED_AT_ONCE = 1 << 12
"""Lines formatted into one chunk: a block of a million empty lines is written a part at a time."""


def numbered_lines(template: bytes, pieces: list[bytes], first: int, increment: int = 1) -> Chunks:
    """``template % (number, line)`` for each line, numbered from ``first``, a few thousand at a time."""
    for start in range(0, len(pieces), NUMBERED_AT_ONCE):
        part = pieces[start : start + NUMBERED_AT_ONCE]
        counted = itertools.count(first + start * increment, increment)
        yield b"".join([template % pair for pair in zip(counted, part, strict=False)])


def _nl_lines(
    pieces: list[bytes], style: _NlFormat, number: list[int], body: list[bool], numbered: bool | None = None
) -> Iterable[bytes]:
    """Each line with its number (or blanks) and a newline; ``numbered`` given: a long line's prefix
    alone (it is never a section delimiter)."""
    blank = b" " * (style.width + len(style.separator))
    for text in pieces:
        if numbered is None and text in _SECTION_DELIMITERS:
            # A delimiter line starts a header, body or footer section: shown empty, numbering restarts.
            body[0] = text == b"\\:\\:"
            number[0] = style.start
            yield b"\n"
            continue
        end = b"\n" if numbered is None else b""
        if body[0] and (numbered or style.style == "a" or style.style == "t" and text):
            yield style.number(number[0]) + text + end
            number[0] += style.increment
        else:
            yield blank + text + end


# -- echo -----------------------------------------------------------------------------------------


def echo(io: Io, args: list[str]) -> Chunks:
    """bash's builtin echo (``xpg_echo`` off): ``-n`` drops the newline; ``-e`` escapes are Unsupported."""
    newline = True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        if "e" in args[0] and any("\\" in arg for arg in args[1:]):
            raise Unsupported("echo -e with escapes")
        newline = newline and "n" not in args[0]
        args = args[1:]
    return iter([(" ".join(args) + ("\n" if newline else "")).encode("utf-8", "surrogateescape")])
