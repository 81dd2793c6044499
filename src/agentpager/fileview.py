"""A file as a viewer shows it: the same text, and the same index, the agent's tools read.

The viewer reads files only through this module and Workspace: what it needs of the engine is here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

from agentpager.engine.content import TextContent
from agentpager.engine.lineindex import Cancelled, FileChanged
from agentpager.engine.textfile import TextReader

if TYPE_CHECKING:
    from agentpager.engine.patterns import Matcher

__all__ = ["Cancelled", "FileChanged", "FileView", "Matcher", "ViewError", "compile_search"]


class ViewError(Exception):
    """Why a file cannot be viewed as text: the agent's error message, and what the file is.

    A plain exception, not a frozen dataclass: raising sets ``__traceback__``, which a frozen one
    refuses (inside a ``with`` block that became FrozenInstanceError)."""

    def __init__(self, message: str, mime: str = "", size: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.mime = mime
        self.size = size


def compile_search(pattern: str, flags: int) -> Matcher:
    """A search (a Python regex with ``re`` flags) that runs in linear time (RE2, else ``re`` in a child
    process); ViewError for a bad pattern. The patterns module loads on the first search."""
    from agentpager.engine.patterns import PatternError, compile_regex

    try:
        return compile_regex(pattern, flags)
    except PatternError as error:
        raise ViewError(error.message) from None


class FileView:
    """One file's text for a viewer: line windows, the line count with progress, offsets, search.

    Every method opens the file as it is now (beneath the workspace root, as the tools do), so a
    viewer sees appends and replacements; the index is shared with the tools, so a window the
    viewer has indexed costs the agent's call nothing. A file that changed so that it can no longer
    be read raises FileChanged (an OSError).
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

    def version(self) -> tuple[int, int]:
        """Which version of the file the index describes now: another one once the file grew, was
        replaced or was rewritten (a stat, no read of an unchanged file)."""
        with self.open() as reader:
            return reader.generation, reader.size

    def available_lines(self) -> int:
        """Lines that can be shown now: all of them once indexed, else those already scanned whole."""
        with self.open() as reader:
            return reader.available_lines()

    def line_prefixes(self, first: int, last: int, limit: int) -> list[tuple[str, bool]]:
        """Each of lines ``first..last``: its first ``limit`` characters, and whether it is longer."""
        with self.open() as reader:
            return list(reader.line_prefixes(first, last, limit))

    def search(self, pattern: Matcher, cancel: threading.Event | None = None) -> Iterator[int]:
        """Numbers of the lines where ``pattern`` matches, in order (see TextReader.search); ViewError
        when ``re``, in its child, takes too long or refuses the pattern."""
        from agentpager.engine.patterns import PatternError

        with self.open() as reader:
            try:
                yield from reader.search(pattern, cancel=cancel)
            except PatternError as error:
                raise ViewError(error.message) from None

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
        return self._file.indexed
