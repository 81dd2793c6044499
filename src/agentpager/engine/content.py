"""From a real path to what the tools read: UTF-8 text, a refusal for binary, or a failed conversion.

Every kind of text ends up as a UTF-8 file read through one TextFile: plain UTF-8 files directly
(after a BOM), UTF-16/32 text re-encoded once into the cache, documents converted once into it.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agentpager.engine import cache
from agentpager.engine.classify import HEAD_SIZE, Classification, classify
from agentpager.engine.documents import ConversionError, ConversionLimits, convert_document
from agentpager.engine.lineindex import Stamp, iter_bytes
from agentpager.engine.savedindex import IndexStore
from agentpager.engine.textfile import TextFile, open_regular


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


Content = TextContent | BinaryContent | UnconvertibleContent


class ContentStore:
    """Classifies files and keeps their TextFiles, with their indexes, between calls."""

    def __init__(
        self, cache_dir: Path | None = None, capacity: int = 64, limits: ConversionLimits | None = None
    ) -> None:
        self.cache = cache.CacheDir(cache_dir or cache.cache_root())
        self._indexes = IndexStore(self.cache)
        self.limits = limits
        """Memory and time a conversion may take (None: ConversionLimits.from_env())."""
        self._files: OrderedDict[tuple[str, int], TextFile] = OrderedDict()
        self._capacity = capacity

    def inspect(self, real_path: str, display_name: str) -> tuple[Classification, Stamp]:
        """Classify the file from its head; also say which version of it was looked at."""
        fd, st = open_regular(real_path)
        try:
            head = os.pread(fd, HEAD_SIZE, 0)
        finally:
            os.close(fd)
        return classify(head, real_path, display_name), Stamp.of(st)

    def content(self, real_path: str, display_name: str, cancel: threading.Event | None = None) -> Content:
        """What a text tool reads from the file (converting a document on first use).

        A conversion runs in a child process, which setting ``cancel`` kills (raising Cancelled).
        """
        found, stamp = self.inspect(real_path, display_name)
        if found.kind == "binary":
            return BinaryContent(found.mime)
        if found.kind == "document":
            try:
                path = self.convert(real_path, found, stamp, cancel)
            except ConversionError as error:
                return UnconvertibleContent(error.reason)
            return TextContent(self._text_file(str(path), 0), found)
        if found.encoding != "utf-8":
            path = self._reencode(real_path, found, stamp)
            return TextContent(self._text_file(str(path), 0), found)
        return TextContent(self._text_file(real_path, found.bom_length), found)

    def utf8_file(self, real_path: str) -> TextFile:
        """The file's bytes as UTF-8 text, as they are: not classified, no byte-order mark skipped
        (for agents that read every file as UTF-8)."""
        return self._text_file(real_path, 0)

    def _text_file(self, path: str, base: int) -> TextFile:
        key = (path, base)
        found = self._files.get(key)
        if found is None:
            found = self._files[key] = TextFile(path, base, self._indexes)
            if len(self._files) > self._capacity:
                self._files.popitem(last=False)
        else:
            self._files.move_to_end(key)
        return found

    def convert(
        self, real_path: str, found: Classification, stamp: Stamp, cancel: threading.Event | None = None
    ) -> Path:
        """The cached Markdown of a document, converted now if need be; ConversionError if it cannot
        be (that is cached too), Cancelled when ``cancel`` is set first."""
        markdown = self.cache.entry("documents", real_path, stamp, ".md")
        failure = markdown.with_suffix(".failed")
        if self.cache.lookup(markdown):
            return markdown
        if self.cache.lookup(failure):
            raise ConversionError(failure.read_text(encoding="utf-8"))
        fd, _ = open_regular(real_path)
        try:
            text = convert_document(fd, found.document_type, cancel, self.limits)
        except ConversionError as error:
            self.cache.write(failure, [error.reason.encode("utf-8")])
            raise
        finally:
            os.close(fd)
        self.cache.write(markdown, [text.encode("utf-8", "replace")])
        return markdown

    def _reencode(self, real_path: str, found: Classification, stamp: Stamp) -> Path:
        target = self.cache.entry("reencoded", real_path, stamp, ".txt")
        if not self.cache.lookup(target):
            self.cache.write(target, _reencoded(real_path, found))
        return target


def _reencoded(path: str, found: Classification) -> Iterator[bytes]:
    """The text of a UTF-16/32 file, after its BOM, as UTF-8 (invalid units become U+FFFD)."""
    decoder = codecs.getincrementaldecoder(found.encoding)("replace")
    fd, st = open_regular(path)
    try:
        for chunk in iter_bytes(fd, found.bom_length, st.st_size):
            yield decoder.decode(chunk).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
    finally:
        os.close(fd)
