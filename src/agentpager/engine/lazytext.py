"""Text too large to hold: known by its length and readable from the start, chunk by chunk."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator

EAGER_BYTES = 1 << 20
"""Text from at most this many bytes is simply decoded; larger text stays lazy."""


class LazyText:
    """Text produced by ``chunks()`` each time it is read (so it never has to be held whole)."""

    def __init__(self, chunks: Callable[[], Iterable[str]], length: int | None = None) -> None:
        self._chunks = chunks
        self._length = length

    @classmethod
    def of(cls, chunks: Callable[[], Iterable[str]], byte_size: int, length: int | None = None) -> str | LazyText:
        """A plain string when the text comes from few bytes, else a LazyText."""
        if byte_size <= EAGER_BYTES:
            return "".join(chunks())
        return cls(chunks, length)

    def __iter__(self) -> Iterator[str]:
        return iter(self._chunks())

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(len(chunk) for chunk in self)
        return self._length

    def head(self, limit: int) -> str:
        """The first ``limit`` characters."""
        taken: list[str] = []
        remaining = limit
        for chunk in self:
            if remaining <= 0:
                break
            taken.append(chunk[:remaining])
            remaining -= len(taken[-1])
        return "".join(taken)

    def __str__(self) -> str:
        return "".join(self)


Text = str | LazyText


def join_lines(lines: Iterable[str], batch: int = 1 << 12) -> str:
    """``"\\n".join(lines)`` without a list of every line at once: join makes one first, and for
    50 million short lines that list alone took gigabytes."""
    iterator = iter(lines)
    joined = []
    while chunk := list(itertools.islice(iterator, batch)):
        joined.append("\n".join(chunk))
    return "\n".join(joined)


def head(text: Text, limit: int) -> str:
    return text[:limit] if isinstance(text, str) else text.head(limit)
