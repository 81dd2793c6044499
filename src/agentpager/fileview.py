"""A file as a viewer shows it: the same text, and the same index, the agent's tools read."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from agentpager.engine.content import TextContent
from agentpager.engine.textfile import TextReader


@dataclass(frozen=True)
class ViewError(Exception):
    """Why a file cannot be viewed as text: the agent's error message, and what the file is."""

    message: str
    mime: str = ""
    size: int | None = None

    def __str__(self) -> str:
        return self.message


class FileView:
    """One file's text for a viewer: line windows, the line count with progress, offsets, search.

    Every method opens the file as it is now, so a viewer sees appends and replacements; the index
    is shared with the tools, so a window the viewer has indexed costs the agent's call nothing.
    """

    def __init__(self, name: str, content: TextContent) -> None:
        self.name = name
        """The display path, as the tools show it."""
        self.kind = content.classification.kind
        """``text`` or ``document`` (shown as its converted Markdown)."""
        self.encoding = content.classification.encoding
        self.content = content
        """The text the tools read (for the profile's read calls)."""
        self._file = content.file

    @contextmanager
    def open(self) -> Iterator[TextReader]:
        """A consistent reader over the file as it is now."""
        with self._file.open() as reader:
            yield reader

    def count_lines(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> int:
        """Index the whole file and return its line count.

        ``progress(scanned_bytes, total_bytes)`` is called after each block; setting ``cancel``
        stops with ``Cancelled`` (what was indexed is kept, and a later count resumes from there).
        """
        with self.open() as reader:
            reader.build_index(progress, cancel)
            return reader.line_count()

    def position(self, offset: int, unit: Literal["char", "byte"]) -> tuple[int, int]:
        """The line holding character (or byte) ``offset``, and the characters of that line before it.

        It may count the whole file's characters once: keep it off a UI thread.
        """
        with self.open() as reader:
            return reader.position(offset, unit)

    def line_at_fraction(self, fraction: float) -> int:
        """The line holding the byte ``fraction`` of the way through the file (as ``less`` reads
        ``50%``). It may index the file up to there: keep it off a UI thread."""
        with self.open() as reader:
            return min(reader.line_at_byte(int(reader.size * fraction)), max(reader.line_count(), 1))

    @property
    def indexed(self) -> tuple[int, int]:
        """Bytes indexed so far, of how many."""
        index = self._file.index
        return index.scanned - index.base, index.size - index.base
