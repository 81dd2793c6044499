"""From an opened file to what the tools read: UTF-8 text, a refusal for binary, or a failed conversion.

Every kind of text ends up as a UTF-8 file read through one TextFile: plain UTF-8 files directly
(after a BOM), UTF-16/32 text re-encoded once into the cache, documents converted once into it (kept
out of it when it cannot be written: the cache only saves work). The file is classified,
converted and re-encoded from the descriptor its caller opened, never by name.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentpager.engine import cache
from agentpager.engine.classify import HEAD_SIZE, Classification, classify
from agentpager.engine.documents import ConversionError, ConversionLimits, convert_document
from agentpager.engine.lineindex import LineIndex, Stamp, iter_bytes
from agentpager.engine.savedindex import IndexStore
from agentpager.engine.textfile import Reopener, SharedIndex, TextFile, open_regular, path_opener


class Opened(Protocol):
    """A file its caller opened (and closes)."""

    fd: int
    st: os.stat_result
    real: str
    """Its real path, which names it in the caches."""
    display: str
    """Its display path: a zip's extension there decides whether it is a document."""


@dataclass(frozen=True)
class TextContent:
    file: TextFile
    classification: Classification


@dataclass(frozen=True)
class BinaryContent:
    mime: str


@dataclass(frozen=True)
class UnconvertibleContent:
    reason: str
    mime: str


Content = TextContent | BinaryContent | UnconvertibleContent


_UNCACHED_KEPT = 8
"""Converted texts kept out of a cache that cannot be written (each as large as its text)."""


class ContentStore:
    """Classifies files and keeps their indexes between calls (a big file's also in the cache dir)."""

    def __init__(
        self, cache_dir: Path | None = None, capacity: int = 64, limits: ConversionLimits | None = None
    ) -> None:
        self.cache = cache.CacheDir(cache_dir or cache.cache_root())
        self._saved = IndexStore(self.cache)
        self.limits = limits
        """Memory and time a conversion may take (None: ConversionLimits.from_env())."""
        self._indexes: OrderedDict[tuple[str, int], SharedIndex] = OrderedDict()
        self._uncached: OrderedDict[str, TextFile] = OrderedDict()
        """Texts the cache could not take, by the entry they would have been (the last few used)."""
        self._capacity = capacity
        self._lock = threading.Lock()

    def inspect(self, opened: Opened) -> Classification:
        """What the file holds (binary, document, or text and its encoding), decided from its head."""
        return classify(os.pread(opened.fd, HEAD_SIZE, 0), opened.fd, opened.display)

    def content(self, opened: Opened, reopen: Reopener, cancel: threading.Event | None = None) -> Content:
        """What a text tool reads from the file (converting a document on first use).

        ``reopen`` gives each reader of a plain text file its descriptor. A conversion runs in a child
        process given ``opened.fd``, which setting ``cancel`` kills (raising Cancelled).
        """
        found = self.inspect(opened)
        stamp = Stamp.of(opened.st)
        if found.kind == "binary":
            return BinaryContent(found.mime)
        if found.kind == "document":
            try:
                return TextContent(self.convert(opened, found, stamp, cancel), found)
            except ConversionError as error:
                return UnconvertibleContent(error.reason, found.mime)
        if found.encoding != "utf-8":
            target = self.cache.entry("reencoded", opened.real, stamp, ".txt")
            text = self._stored(target) or self._store(target, lambda: _reencoded(opened.fd, found, stamp.size))
            return TextContent(text, found)
        return TextContent(TextFile(reopen, self._index(opened.real, found.bom_length)), found)

    def utf8_file(self, real_path: str, reopen: Reopener, base: int = 0) -> TextFile:
        """The file's bytes after ``base`` as UTF-8 text, as they are: not classified, no byte-order mark
        skipped unless ``base`` says so (for agents that read every file as UTF-8). ``reopen`` as for
        ``content``."""
        return TextFile(reopen, self._index(real_path, base))

    def _stored(self, entry: Path) -> TextFile | None:
        """A converted or re-encoded text already stored: in the cache at ``entry`` (opened by its
        name: the cache is ours), or kept out of it (``_store``); None when it is not."""
        with self._lock:
            kept = self._uncached.get(str(entry))
            if kept is not None:
                self._uncached.move_to_end(str(entry))
                return kept
        if self.cache.lookup(entry):
            return TextFile(path_opener(str(entry)), self._index(str(entry), 0))
        return None

    def _store(self, entry: Path, chunks: Callable[[], Iterable[bytes]]) -> TextFile:
        """The text ``chunks()`` gives, written to the cache at ``entry``.

        The cache only saves work: where it cannot be written (a full disk, a read-only one, a cache
        dir under a file) the text is kept out of it, in an unlinked temporary file or in memory, for
        as long as it is read (and its line index in memory); the last few are kept for the next
        call."""
        try:
            self.cache.write(entry, chunks())
        except OSError:
            kept = TextFile(cache.anonymous_file(chunks))
            with self._lock:
                self._uncached[str(entry)] = kept
                if len(self._uncached) > _UNCACHED_KEPT:
                    self._uncached.popitem(last=False)
            return kept
        return TextFile(path_opener(str(entry)), self._index(str(entry), 0))

    def _index(self, key: str, base: int) -> SharedIndex:
        """The index of the file whose real path is ``key``, kept between calls (the least recently
        used dropped past the capacity)."""
        with self._lock:
            found = self._indexes.get((key, base))
            if found is None:
                found = self._indexes[key, base] = SharedIndex(LineIndex(base), self._saved, key)
                if len(self._indexes) > self._capacity:
                    self._indexes.popitem(last=False)
            else:
                self._indexes.move_to_end((key, base))
            return found

    def convert(
        self, opened: Opened, found: Classification, stamp: Stamp, cancel: threading.Event | None = None
    ) -> TextFile:
        """The Markdown of the document open as ``opened.fd``, from the cache, else converted now (in a
        child given that descriptor) and cached; ConversionError if it cannot be (that is cached too),
        Cancelled when ``cancel`` is set first."""
        markdown = self.cache.entry("documents", opened.real, stamp, ".md")
        failure = markdown.with_suffix(".failed")
        stored = self._stored(markdown)
        if stored is not None:
            return stored
        if self.cache.lookup(failure):
            with open_regular(str(failure)) as file:
                raise ConversionError(file.read().decode("utf-8", "replace"))
        try:
            text = convert_document(opened.fd, found.document_type, cancel, self.limits)
        except ConversionError as error:
            try:
                self.cache.write(failure, [error.reason.encode("utf-8")])
            except OSError:
                pass  # converted again next time
            raise
        return self._store(markdown, lambda: [text.encode("utf-8", "replace")])


def _reencoded(fd: int, found: Classification, size: int) -> Iterator[bytes]:
    """The text of a UTF-16/32 file, after its BOM, as UTF-8 (invalid units become U+FFFD)."""
    decoder = codecs.getincrementaldecoder(found.encoding)("replace")
    for chunk in iter_bytes(fd, found.bom_length, size):
        yield decoder.decode(chunk).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")
