"""The JSON records of a transcript file, read a window at a time, each with where it came from.

A transcript is either JSON Lines (one record per line) or one JSON array (one record per
element). Both are read through the engine's TextFile, never whole: lines in batches, array
elements one at a time from a stream of characters. A record's location lets it be read again
later, so a transcript of hundreds of MB keeps only summaries in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from agentpager.engine.textfile import TextFile, TextReader, path_opener

Kind = Literal["jsonl", "array"]
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\r\n"


@dataclass(frozen=True)
class Location:
    """A line number (JSON Lines), or a span of characters (an element of a JSON array)."""

    line: int = 0
    start: int = 0
    length: int = 0

    def describe(self) -> str:
        return f"line {self.line}" if self.line else f"character {self.start:,}"


@dataclass(frozen=True)
class Record:
    value: Any
    where: Location


@dataclass(frozen=True)
class BadRecord:
    where: Location
    problem: str


class RecordFile:
    """A transcript file's records."""

    def __init__(self, path: str) -> None:
        self.file = TextFile(path_opener(path))

    def kind(self) -> Kind:
        """``array`` when the first character that is not white space is ``[``."""
        with self.file.open() as reader:
            for chunk in reader.decoded():
                stripped = chunk.lstrip(_WHITESPACE + "\ufeff")
                if stripped:
                    return "array" if stripped[0] == "[" else "jsonl"
        return "jsonl"

    def records(self) -> Iterator[Record | BadRecord]:
        with self.file.open() as reader:
            if self.kind() == "array":
                yield from _array_elements(reader)
            else:
                yield from _json_lines(reader)

    def read_again(self, where: Location) -> Any:
        """The record at ``where``, parsed again."""
        with self.file.open() as reader:
            if where.line:
                return json.loads(str(reader.lines_text(where.line, where.line)).lstrip("\ufeff"))
            return json.loads(str(reader.chars_text(where.start, where.length)))


def _json_lines(reader: TextReader) -> Iterator[Record | BadRecord]:
    for number, line in reader.iter_lines():
        if not line.strip():
            continue
        where = Location(line=number)
        try:
            yield Record(json.loads(line.lstrip("\ufeff")), where)
        except ValueError as error:
            yield BadRecord(where, f"not JSON ({error})")


def _array_elements(reader: TextReader) -> Iterator[Record | BadRecord]:
    """The elements of a top-level JSON array, parsed one at a time from a character stream."""
    chunks = reader.decoded()
    buffer, consumed = "", 0  # consumed: characters of the file before the buffer
    state = "open"  # expecting "[", then an element or "]", then "," or "]"
    ended = False

    def more() -> bool:
        nonlocal buffer, ended
        chunk = next(chunks, None)
        if chunk is None:
            ended = True
            return False
        buffer += chunk
        return True

    position = 0
    while True:
        while position < len(buffer) and buffer[position] in _WHITESPACE + "\ufeff":
            position += 1
        if position >= len(buffer):
            buffer, consumed, position = "", consumed + len(buffer), 0
            if not more():
                if state != "done":
                    yield BadRecord(Location(start=consumed), "the JSON array is not closed")
                return
            continue
        char = buffer[position]
        if state == "open":
            if char != "[":
                yield BadRecord(Location(start=consumed + position), "not a JSON array")
                return
            position, state = position + 1, "element"
        elif state in ("element", "separator") and char == "]":
            state = "done"
            position += 1
        elif state == "separator":
            if char != ",":
                yield BadRecord(Location(start=consumed + position), f"expected ',' or ']', found {char!r}")
                return
            position, state = position + 1, "element"
        elif state == "element":
            try:
                value, end = _DECODER.raw_decode(buffer, position)
            except ValueError as error:
                if not ended and more():
                    continue  # the element goes on in the next chunk
                yield BadRecord(Location(start=consumed + position), f"not JSON ({error})")
                return
            if end == len(buffer) and not ended and more():
                continue  # a number cut by the chunk's end would parse too early
            yield Record(value, Location(start=consumed + position, length=end - position))
            # Drop what was parsed, so the buffer holds one element at most.
            consumed, buffer, position = consumed + end, buffer[end:], 0
            state = "separator"
        else:  # after the closing bracket
            yield BadRecord(Location(start=consumed + position), "text after the end of the JSON array")
            return
