"""GNU coreutils 9 ``wc`` with ``-l``, ``-w``, ``-m``, ``-c``: its counts and its column widths.

The width rule is coreutils' ``compute_number_width``: one count of one operand is not padded;
otherwise the width is the digits of the regular operands' total size, at least 7 when one of them
is not a regular file (a pipe, a directory); operands that cannot be stat'ed count for nothing.
``wc -l`` of a regular file counts through the line index (numpy); words and characters are counted
as glibc's C.UTF-8 locale classifies characters (invalid bytes are neither).
"""

from __future__ import annotations

import codecs
import stat
import unicodedata
from dataclasses import dataclass

from agentpager.tools.shell.io import Chunks, Io, ReadError, Source, options, quote_if_needed, reading, strerror

_ORDER = ("lines", "words", "chars", "bytes")
_FLAGS = {"-l": "lines", "--lines": "lines", "-w": "words", "--words": "words", "-m": "chars", "--chars": "chars"}
_FLAGS |= {"-c": "bytes", "--bytes": "bytes"}
_ASCII_SEPARATORS = b" \t\n\v\f\r"
# ASCII: separators become a space, printable characters a letter, other controls are dropped.
_ASCII_WORDS = bytes(
    32 if byte in _ASCII_SEPARATORS else ord("x") if 0x21 <= byte <= 0x7E else 0 for byte in range(128)
) + bytes(128)
_NO_BREAK_SPACES = {"\u00a0", "\u2007", "\u202f", "\u2060"}


@dataclass
class _Counts:
    lines: int = 0
    words: int = 0
    chars: int = 0
    bytes: int = 0

    def add(self, other: _Counts) -> None:
        for name in _ORDER:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def wc(io: Io, args: list[str]) -> Chunks:
    found, names = options("wc", args, "lwmc", ["lines", "words", "chars", "bytes"])
    wanted = {_FLAGS[option] for option, _ in found} or {"lines", "words", "bytes"}
    shown = [name for name in _ORDER if name in wanted]
    return _wc(io, names, shown)


def _width(io: Io, names: list[str], shown: list[str]) -> int:
    operands = names or ["-"]
    if len(operands) == 1 and len(shown) == 1:
        return 1
    minimum, regular_total = 1, 0
    for name in operands:
        if name == "-":
            minimum = 7  # a pipe
            continue
        placed = io.ctx.open(name)
        placed.close()
        if placed.st is None:
            continue
        st = placed.st
        if stat.S_ISREG(st.st_mode):
            regular_total += st.st_size
        else:
            minimum = 7
    return max(minimum, len(str(regular_total)))


def _wc(io: Io, names: list[str], shown: list[str]) -> Chunks:
    width = _width(io, names, shown)
    total = _Counts()

    def line(counts: _Counts, name: str | None) -> bytes:
        fields = [f"{getattr(counts, field):>{width}}" for field in shown]
        text = " ".join(fields) + (f" {name}" if name is not None else "")
        return (text + "\n").encode("utf-8", "surrogateescape")

    for name in names or ["-"]:
        counts = _Counts()
        try:
            with reading(io, name) as source:
                counts = _count(source, shown)
        except ReadError as error:
            io.error(f"{quote_if_needed(name)}: {strerror(error)}")
            io.status = 1
        except OSError as error:
            io.error(f"{quote_if_needed(name)}: {strerror(error)}")
            io.status = 1
            continue
        total.add(counts)
        yield line(counts, name if names else None)
    if len(names) > 1:
        yield line(total, "total")


def _count(source: Source, shown: list[str]) -> _Counts:
    counts = _Counts()
    file = source.file
    if file is not None and not {"words", "chars"} & set(shown):
        counts.bytes = file.size
        if "lines" in shown:
            counts.lines = file.newline_count()
        return counts
    in_word = False
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    text_counts = bool({"words", "chars"} & set(shown))
    for chunk in source.chunks():
        counts.bytes += len(chunk)
        counts.lines += chunk.count(b"\n")
        if not text_counts:
            continue
        if chunk.isascii() and not decoder.getstate()[0]:
            counts.chars += len(chunk)
            words = chunk.translate(_ASCII_WORDS).replace(b"\0", b"")
            counts.words += len(words.split()) - (in_word and words[:1] == b"x")
            in_word = words[-1:] == b"x" if words else in_word
        else:
            text = decoder.decode(chunk)
            for char in text:
                kind = _kind(char)
                counts.chars += kind != "invalid"
                if kind == "separator":
                    in_word = False
                elif kind == "word":
                    counts.words += not in_word
                    in_word = True
    return counts


def _kind(char: str) -> str:
    """How glibc's C.UTF-8 wc sees a character: a separator, a word character, or neither."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return "invalid"  # a byte that is not UTF-8 (surrogateescape)
    if code < 0x80:
        mapped = _ASCII_WORDS[code]
        return "separator" if mapped == ord(" ") else "word" if mapped == ord("x") else "other"
    if char.isspace() or char in _NO_BREAK_SPACES:
        return "separator"
    return "other" if unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn") else "word"
