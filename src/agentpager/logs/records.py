"""The JSON records of a transcript file, read a window at a time, each with where it came from.

A transcript is JSON Lines (one record per line), one JSON array (one record per element), or
one JSON object (Gemini CLI's ``session-*.json``, the Codex TypeScript CLI's ``rollout-*.json``,
SWE-agent's ``.traj``) whose array members are streamed element by element. All are read through
the engine's TextFile, never whole: lines in batches, elements one at a time from a stream of
characters. A record's location lets it be read again later, so a transcript of hundreds of MB
keeps only summaries in memory.

JSON Lines are found with the engine's line index, which reads the file once at about the speed
of ``wc -l``. A line longer than LONG_LINE is first read at its two ends only (``Skim``): its
format decides whether that is enough (a tool output's place and size) or reads it whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from agentpager.engine import jsontext
from agentpager.engine.filesystem import ANYWHERE, Filesystem
from agentpager.engine.lineindex import FileChanged, Stamp
from agentpager.engine.textfile import TextFile, TextReader
from agentpager.logs.skim import Path, Skimmer

Kind = Literal["jsonl", "array", "object"]
_WHITESPACE = " \t\r\n"
_KIND_PROBE_BYTES = 1 << 20
LONG_LINE = 32 * 1024
"""JSON lines longer than this (in bytes) are read at their ends first; shorter ones are parsed whole."""
LINE_END_BYTES = 2 * 1024
"""How much of each end of a long line is read."""
_BATCH_BYTES = 1 << 20


@dataclass(frozen=True)
class Location:
    """A line number and its byte offset (JSON Lines), or a span of characters (an element of a JSON array)."""

    line: int = 0
    start: int = 0
    """The line's first byte (JSON Lines), or the element's first character."""
    length: int = 0
    size: int = 0
    """The record's size in bytes (JSON Lines)."""

    def describe(self) -> str:
        return f"line {self.line}" if self.line else f"character {self.start:,}"


@dataclass(frozen=True)
class Record:
    value: Any
    where: Location
    container: str = ""
    """For a file that is one JSON object: the member whose array holds this record (``messages``,
    ``items``, ``trajectory``), or ``""`` for a member that is not an array (then ``value`` is
    ``{name: value}``)."""
    skim: Skim | None = None
    """For a long JSON line read at its ends only: ``value`` holds what they show."""


@dataclass(frozen=True)
class Skim:
    """What is known of a long line that was read at its ends only."""

    cut: Path
    """Where in the record's value its head ended: that value is ``skim.CUT`` (or holds it)."""
    tail: str
    """The line's last characters, as read."""
    whole: Callable[[], Record | BadRecord]
    """Reads the line whole."""


@dataclass(frozen=True)
class BadRecord:
    where: Location
    problem: str


class RecordFile:
    """A transcript file's records: JSON Lines, one JSON array, or one JSON object whose arrays are streamed."""

    def __init__(self, path: str, filesystem: Filesystem = ANYWHERE) -> None:
        self.path = path
        self.filesystem = filesystem
        self._opener = filesystem.opener(path)
        self.file = TextFile(self._opener)
        self.partial_line = 0
        """The last line's number when the file did not end with a newline at the last read (a
        line still being written, when the file grows), else 0."""
        self._kind: Kind | None = None
        self.generation = 0
        """The generation of the file's line index at the last read (a file replaced or cut starts a
        new one: what was found in another is no longer where it was)."""

    def stamp(self) -> Stamp:
        """What identifies the file's version now (it is opened as it is read: beneath a workspace's
        root, say); OSError when it cannot be."""
        fd = self._opener()
        try:
            return Stamp.of(os.fstat(fd))
        finally:
            os.close(fd)

    def kind(self) -> Kind:
        """``array`` for ``[``; ``object`` for a ``{`` whose first line is not a whole JSON value
        (a pretty-printed document); else ``jsonl``. Decided once the first line is whole."""
        if self._kind is not None:
            return self._kind
        with self.file.open() as reader:
            probe = reader.read_at(0, _KIND_PROBE_BYTES)
        start = len(probe) - len(probe.lstrip(b" \t\r\n"))
        if probe.startswith(b"\xef\xbb\xbf", start):
            start += 3
        end = probe.find(b"\n", start)
        if end < 0 or probe[start : start + 1] == b"[":
            end = len(probe)
        head = probe[start:end].decode("utf-8", "replace").lstrip(_WHITESPACE)
        kind: Kind = "jsonl"
        if head.startswith("["):
            kind = "array"
        elif head.startswith("{"):
            try:
                jsontext.loads(head)
            except jsontext.TooDeep:
                pass  # a whole JSON line
            except ValueError:
                kind = "jsonl" if len(head) >= _KIND_PROBE_BYTES - 1 else "object"
        if b"\n" in probe[start:] or len(probe) >= _KIND_PROBE_BYTES:
            self._kind = kind
        return kind

    def records(self, first_line: int = 1) -> Iterator[Record | BadRecord]:
        """Every record; for JSON Lines, from line ``first_line`` on (a file being written is read on
        from where the last read stopped)."""
        kind = self.kind()
        with self.file.open() as reader:
            self.generation = reader.generation
            if kind == "jsonl":
                self.partial_line = 0
                yield from self._json_lines(reader, first_line)
            else:
                yield from _Stream(reader).document(kind)

    def _json_lines(self, reader: TextReader, first: int) -> Iterator[Record | BadRecord]:
        """Short lines parsed a batch at a time; long ones read at their ends (the last line, when
        it has no newline yet, is noted in ``partial_line`` and never skimmed)."""
        batch: list[tuple[int, int, int]] = []
        skimmer = Skimmer()
        for number, start, end, ended in reader.line_spans(first):
            partial = not ended
            if partial:
                self.partial_line = number
            if end - start <= LONG_LINE or partial:
                batch.append((number, start, end))
                if end - batch[0][1] < _BATCH_BYTES:
                    continue
            yield from _parsed_lines(reader, batch)
            batch = []
            if end - start > LONG_LINE and not partial:
                yield self._skimmed(reader, skimmer, number, start, end)
        yield from _parsed_lines(reader, batch)

    def _skimmed(self, reader: TextReader, skimmer: Skimmer, number: int, start: int, end: int) -> Record | BadRecord:
        where = Location(line=number, start=start, size=end - start)
        head = reader.read_exact(start, LINE_END_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
        tail = reader.read_exact(end - LINE_END_BYTES, LINE_END_BYTES).decode("utf-8", "replace")
        generation = reader.generation

        def whole() -> Record | BadRecord:
            with self.file.open() as again:
                if again.generation != generation:
                    raise FileChanged("the file was replaced while it was read")
                return next(_parsed_lines(again, [(number, start, end)]), BadRecord(where, "an empty line"))

        try:
            found = skimmer.skim(head, tail)
        except jsontext.TooDeep as error:
            return BadRecord(where, str(error))
        if found is None:
            return whole()
        value, cut = found
        return Record(value, where, skim=Skim(cut, tail, whole))

    def read_again(self, where: Location, generation: int | None = None) -> Any:
        """The record at ``where``, parsed again; RecordTooLong past MAX_RECORD_BYTES, FileChanged
        when the file is no longer the ``generation`` (of its line index) that ``where`` was found in."""
        if too_long(where):
            raise RecordTooLong(where)
        with self.file.open() as reader:
            if generation is not None and reader.generation != generation:
                raise FileChanged("the file was replaced since it was read")
            if where.line:
                if where.size:
                    start, end = where.start, where.start + where.size
                else:
                    start, end = reader.line_span(where.line, where.line)
                return json_line(reader.read_exact(start, end - start))
            return jsontext.loads(str(reader.chars_text(where.start, where.length)))


MAX_RECORD_BYTES = 64 << 20
"""A longer record is not read whole again (a 1 GB line took 2-3 GB to parse): what it recorded is
not compared."""


def too_long(where: Location) -> bool:
    """Whether the record at ``where`` is longer than MAX_RECORD_BYTES (characters, in a document)."""
    return max(where.size, where.length) > MAX_RECORD_BYTES


class RecordTooLong(ValueError):
    def __init__(self, where: Location) -> None:
        super().__init__(f"{where.describe()} is longer than {MAX_RECORD_BYTES >> 20} MiB: not read whole")


def _parsed_lines(reader: TextReader, spans: list[tuple[int, int, int]]) -> Iterator[Record | BadRecord]:
    """The records of consecutive lines, read in one piece."""
    if not spans:
        return
    first = spans[0][1]
    data = reader.read_exact(first, spans[-1][2] - first)
    for number, start, end in spans:
        line = data[start - first : end - first]
        if not line or (line[0] in b" \t\r\xef" and not line.strip(b" \t\r\xef\xbb\xbf")):
            continue
        where = Location(line=number, start=start, size=end - start)
        try:
            value = json_line(line)
        except jsontext.TooDeep as error:
            yield BadRecord(where, str(error))
            continue
        except ValueError as error:
            yield BadRecord(where, f"not JSON ({error})")
            continue
        yield Record(value, where)


def json_line(line: bytes) -> Any:
    """The JSON value of one line (decoded as UTF-8 with replacement, a byte-order mark allowed);
    ValueError, saying what is wrong, when it is not one (TooDeep when it nests too deep)."""
    text = line.decode("utf-8", "replace")
    try:
        value, stop = jsontext.scan(text, 0, jsontext.opening_brackets(line))
        if stop == len(text) or text[stop:].isspace():
            return value
    except jsontext.TooDeep:
        raise
    except (StopIteration, ValueError):
        pass
    return jsontext.loads(text.lstrip("\ufeff"))  # says what is wrong (and allows what is right)


def _record(value: Any, where: Location, container: str = "", member: str | None = None) -> Record | BadRecord:
    """A streamed element (of ``container``) or ``member``; a BadRecord for a value passed over (see
    ``_Stream.value``)."""
    if isinstance(value, jsontext.TooDeep):
        return BadRecord(where, str(value))
    return Record(value if member is None else {member: value}, where, container)


class _Stream:
    """The characters of a file, a chunk at a time, parsed one JSON value at a time.

    The buffer holds what is not parsed yet: at most one element (or member) and a chunk.
    """

    def __init__(self, reader: TextReader) -> None:
        self.chunks = reader.decoded()
        self.buffer, self.consumed, self.position, self.ended = "", 0, 0, False

    def more(self) -> bool:
        """Read on until the unparsed text at least doubles (so a huge value is parsed a few times,
        not once per chunk); False at the end of the file."""
        wanted = max(1, 2 * (len(self.buffer) - self.position))
        pieces = [self.buffer[self.position :]]
        read = 0
        while read < wanted:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.ended = True
                break
            pieces.append(chunk)
            read += len(chunk)
        if not read:
            return False
        # Drop what was parsed, so the buffer holds one element at most.
        self.buffer, self.consumed = "".join(pieces), self.consumed + self.position
        self.position = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space, or ``""`` at the end of the file."""
        while True:
            while self.position < len(self.buffer) and self.buffer[self.position] in _WHITESPACE + "\ufeff":
                self.position += 1
            if self.position < len(self.buffer):
                return self.buffer[self.position]
            if not self.more():
                return ""

    def here(self) -> Location:
        return Location(start=self.consumed + self.position)

    def value(self) -> tuple[Any, Location] | BadRecord:
        """The JSON value at the cursor, and where it is; a value nested too deep is passed over, a
        TooDeep in its place."""
        self.peek()
        while True:
            try:
                value, end = jsontext.decode(self.buffer, self.position)
            except jsontext.TooDeep as error:
                found = jsontext.value_end(self.buffer, self.position)
                if found is None:
                    if not self.ended and self.more():
                        continue
                    return BadRecord(self.here(), str(error))
                value, end = error, found  # passed over: the error stands for it
            except ValueError as error:
                if not self.ended and self.more():
                    continue  # the value goes on in the next chunk
                return BadRecord(self.here(), f"not JSON ({error})")
            if end == len(self.buffer) and not self.ended and self.more():
                continue  # a number cut by the chunk's end would parse too early
            where = Location(start=self.consumed + self.position, length=end - self.position)
            self.position = end
            return value, where

    def document(self, kind: Kind) -> Iterator[Record | BadRecord]:
        opening = self.peek()
        if opening != ("[" if kind == "array" else "{"):
            yield BadRecord(self.here(), f"not a JSON {kind}")
            return
        self.position += 1
        if kind == "array":
            yield from self.elements("")
        else:
            yield from self.members()
        if self.peek():
            yield BadRecord(self.here(), f"text after the end of the JSON {kind}")

    def elements(self, container: str) -> Iterator[Record | BadRecord]:
        """The elements of an array whose ``[`` was read, one at a time, through its ``]``."""
        if self.peek() == "]":
            self.position += 1
            return
        while True:
            if not self.peek():
                yield BadRecord(self.here(), "the JSON array is not closed")
                return
            parsed = self.value()
            if isinstance(parsed, BadRecord):
                yield parsed
                return
            yield _record(parsed[0], parsed[1], container)
            separator = self.peek()
            self.position += 1
            if separator == "]":
                return
            if separator != ",":
                self.position -= 1
                yield BadRecord(self.here(), f"expected ',' or ']', found {separator or 'the end'!r}")
                return

    def members(self) -> Iterator[Record | BadRecord]:
        """The members of an object whose ``{`` was read: arrays element by element, others whole."""
        if self.peek() == "}":
            self.position += 1
            return
        while True:
            key = self.value() if self.peek() == '"' else BadRecord(self.here(), "expected a member name")
            if isinstance(key, BadRecord) or self.peek() != ":":
                yield key if isinstance(key, BadRecord) else BadRecord(self.here(), "expected ':'")
                return
            self.position += 1
            name = str(key[0])
            if self.peek() == "[":
                self.position += 1
                yield from self.elements(name)
            else:
                parsed = self.value()
                if isinstance(parsed, BadRecord):
                    yield parsed
                    return
                yield _record(parsed[0], parsed[1], member=name)
            separator = self.peek()
            self.position += 1
            if separator == "}":
                return
            if separator != ",":
                self.position -= 1
                yield BadRecord(self.here(), f"expected ',' or '}}', found {separator or 'the end'!r}")
                return
