"""Questions to the index: text in every session's prompts, call arguments and outputs; the calls
that read a file, or one line of it; how many reads covered each line of a window.

A text is looked for in the logs themselves, as JSON writes it (quotes and backslashes escaped, and
escaped twice where arguments are a JSON string in a JSON string), by RE2 over their bytes: about
the speed of reading them. SQLite's full-text index (FTS5) was measured here at 11 MB/s (words)
and 1.5 MB/s (trigrams, which find any part of a word): minutes for the outputs of 20,000 sessions,
and an index as big as they are; so the index holds where each record is instead. A line where the
text occurs is placed with it (a prompt's line, a call's, an output's) and read again, and only a
prompt, arguments or output that hold the text count (not a field every line has, such as the cwd).
Case is ignored unless the text has a capital letter (as ``less -i`` does).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar

from agentpager.sessions import SessionInfo, session_agents
from agentpager.sessions_index.listing import home_key
from agentpager.sessions_index.store import SUMMARY_FIELDS, IndexStore, info_of, newest_first

Kind = Literal["prompt", "arguments", "output"]
BLOCK_BYTES = 8 << 20
EXCERPT_CHARS = 120
LINE_READ_WHOLE = 16 << 20
"""A hit on a longer line is not checked against its record (nor shown): the line would be read whole."""
_SINCE = re.compile(r"(\d+)([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class SearchError(ValueError):
    """A search that cannot be run; the message says why."""


@dataclass(frozen=True)
class Filters:
    agent: str | None = None
    tool: str | None = None
    since: str | None = None
    """A UTC time as logs write it (``2026-01-02T10:00:00``): sessions that ended at or after it."""
    paths: frozenset[str] | None = None
    """Only the sessions of these files (a batch whose calls were just read)."""

    def where(self) -> tuple[str, list[Any]]:
        """SQL conditions on the sessions (``s``) and their calls (``c``, when ``tool`` is set)."""
        conditions, values = ["s.home = ?"], []
        if self.agent:
            conditions.append("s.agent = ?")
            values.append(self.agent)
        if self.since:
            conditions.append("coalesce(nullif(s.ended, ''), s.started) >= ?")
            values.append(self.since)
        if self.paths is not None:
            conditions.append("s.path IN (SELECT value FROM json_each(?))")
            values.append(json.dumps(list(self.paths), ensure_ascii=False))
        return " AND ".join(conditions), values


def since_time(text: str, now: datetime | None = None, named: str = "--since ") -> str:
    """``--since``: a date or time (``2026-01-02``, ``2026-01-02T10:00``, local time unless it says
    otherwise) or a span back from now (``30m``, ``12h``, ``7d``, ``2w``), as a UTC time. SearchError
    says what was ``named`` (the browser's search says ``since:``)."""
    now = now or datetime.now(UTC)
    span = _SINCE.fullmatch(text.strip())
    if span:
        moment = now - timedelta(**{_UNITS[span.group(2)]: int(span.group(1))})
    else:
        try:
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise SearchError(
                f"{named}{text}: not a date (2026-01-02), a time (2026-01-02T10:00) or a span (7d, 12h, 30m, 2w)"
            ) from None
        if moment.tzinfo is None:
            moment = moment.astimezone()
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


_FILTER_WORD = re.compile(r"(?:^|\s)(tool|agent|since|read):(\S+)")


@dataclass(frozen=True)
class Query:
    """A search as the browser's prompt takes it."""

    text: str
    read: str | None
    """An absolute path: the calls that read it, instead of a text."""
    filters: Filters

    @property
    def needs_calls(self) -> bool:
        """Whether what it finds is in the sessions' calls (filters alone without a tool are not)."""
        return bool(self.text or self.read is not None or self.filters.tool)


def parse_query(typed: str) -> Query:
    """``tool:NAME``, ``agent:NAME``, ``since:WHEN`` and ``read:PATH`` among the words set filters;
    what is left is the text. SearchError when there is neither a text, nor ``read:``, nor a filter
    (filters alone list the sessions they let through: ``first_prompts``)."""
    found = {name: value for name, value in _FILTER_WORD.findall(typed)}
    text = _FILTER_WORD.sub(" ", typed).strip()
    read = os.path.abspath(os.path.expanduser(found["read"])) if "read" in found else None
    if read is None and not text and not found:
        raise SearchError("Search for some text, read:PATH for the calls that read a file, or filters alone.")
    agent, agents = found.get("agent"), session_agents()
    if agent is not None and agent not in agents:
        raise SearchError(f"agent:{agent}: no such agent ({', '.join(agents)})")
    since = since_time(found["since"], named="since:") if "since" in found else None
    return Query(text, read, Filters(agent, found.get("tool"), since))


@dataclass(frozen=True)
class Hit:
    """A prompt, a call's arguments or a call's output that holds the text."""

    session: SessionInfo
    kind: Kind
    line: int
    """The record's line in the log."""
    call: int | None
    """The call's number in the session (None for a prompt)."""
    tool: str
    excerpt: str
    found: tuple[int, int]
    """Where the text is in the excerpt: the place of its first character and the place past its last."""


@dataclass(frozen=True)
class ReadCall:
    """A call that read (part of) a file."""

    session: SessionInfo
    call: int
    tool: str
    first_line: int
    last_line: int | None
    """None: to the file's end."""
    line: int
    """The call's record's line in the log."""


Finding = TypeVar("Finding", bound=Hit | ReadCall)


def sessions_with(store: IndexStore, home: str | None, filters: Filters) -> list[SessionInfo]:
    """The sessions the filters let through (with ``tool``: those with a call of it), newest first."""
    where, values = filters.where()
    if filters.tool:
        where += " AND EXISTS (SELECT 1 FROM calls c WHERE c.session = s.id AND c.tool = ?)"
        values.append(filters.tool)
    columns = ", ".join(f"s.{name}" for name in SUMMARY_FIELDS)

    def read(db: sqlite3.Connection) -> list[SessionInfo]:
        cursor = db.execute(
            f"SELECT {columns} FROM sessions s WHERE {where} ORDER BY {newest_first('s.')}", [home_key(home), *values]
        )
        return [info_of(row) for row in cursor]

    return store.run(read)


def first_prompts(store: IndexStore, home: str | None, filters: Filters) -> list[Hit]:
    """The sessions the filters let through (``sessions_with``), each as its first prompt: what the
    browser's search finds for filters without a text."""
    return [Hit(info, "prompt", 1, None, "", info.title, (0, 0)) for info in sessions_with(store, home, filters)]


def reads_of(
    store: IndexStore, home: str | None, path: str, filters: Filters = Filters(), line: int | None = None
) -> list[ReadCall]:
    """The calls that read the file at ``path`` (absolute), or its line ``line``, newest session first."""
    where, values = filters.where()
    where += " AND c.file = ?"
    values.append(os.path.normpath(path))
    if filters.tool:
        where += " AND c.tool = ?"
        values.append(filters.tool)
    if line is not None:
        where += " AND c.first_line <= ? AND (c.last_line IS NULL OR c.last_line >= ?)"
        values += [line, line]
    columns = ", ".join(f"s.{name}" for name in SUMMARY_FIELDS)

    def read(db: sqlite3.Connection) -> list[ReadCall]:
        cursor = db.execute(
            f"SELECT {columns}, c.number, c.tool, c.first_line, c.last_line, c.line FROM calls c "
            f"JOIN sessions s ON s.id = c.session WHERE {where} ORDER BY {newest_first('s.')}, c.number",
            [home_key(home), *values],
        )
        width = len(SUMMARY_FIELDS)
        return [ReadCall(info_of(row[:width]), *row[width:]) for row in cursor]

    return store.run(read)


def read_counts(store: IndexStore, home: str | None, path: str, first: int, last: int) -> list[int]:
    """How many calls read each of lines ``first..last`` of the file at ``path``: O(reads + lines)."""

    def read(db: sqlite3.Connection) -> list[tuple[int, int | None]]:
        return db.execute(
            "SELECT c.first_line, c.last_line FROM calls c JOIN sessions s ON s.id = c.session "
            "WHERE s.home = ? AND c.file = ? AND c.first_line <= ? AND (c.last_line IS NULL OR c.last_line >= ?)",
            (home_key(home), os.path.normpath(path), last, first),
        ).fetchall()

    steps = [0] * (last - first + 2)
    for start, end in store.run(read):
        steps[max(start, first) - first] += 1
        steps[min(last, end if end is not None else last) - first + 1] -= 1
    counts, running = [], 0
    for step in steps[:-1]:
        running += step
        counts.append(running)
    return counts


@dataclass(frozen=True)
class ReadSummary:
    calls: int
    sessions: int
    lines: int
    """Lines of the file that at least one call read."""


def read_summary(store: IndexStore, home: str | None, path: str, line_count: int) -> ReadSummary:
    """How many calls of how many sessions read the file at ``path``, and how many of its
    ``line_count`` lines they covered together."""

    def read(db: sqlite3.Connection) -> list[tuple[int, int, int | None]]:
        return db.execute(
            "SELECT c.session, c.first_line, c.last_line FROM calls c JOIN sessions s ON s.id = c.session "
            "WHERE s.home = ? AND c.file = ? ORDER BY c.first_line",
            (home_key(home), os.path.normpath(path)),
        ).fetchall()

    rows = store.run(read)
    covered, reached = 0, 0
    for _, start, end in rows:
        end = line_count if end is None else min(end, line_count)
        if end > reached:
            covered += end - max(start - 1, reached)
            reached = end
    return ReadSummary(len(rows), len({session for session, _, _ in rows}), covered)


# -- text -------------------------------------------------------------------------------------------


class TextMatch:
    """A text as it is searched for: smart case, and the forms JSON writes it in."""

    def __init__(self, text: str) -> None:
        if not text:
            raise SearchError("Search for some text.")
        from agentpager.engine.patterns import PatternError, literal_finder

        self.text = text
        self.ignore_case = not any(char.isupper() for char in text)
        self.folded = text.lower() if self.ignore_case else text
        once = json.dumps(text, ensure_ascii=False)[1:-1]
        forms = dict.fromkeys([once, json.dumps(once, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]])
        self.longest = max(len(form.encode()) for form in forms)
        try:
            self.find = literal_finder(list(forms), self.ignore_case)
        except PatternError as error:
            raise SearchError(error.message) from None

    def at(self, text: str) -> int:
        """Where the text is in ``text``, or -1."""
        return (text.lower() if self.ignore_case else text).find(self.folded)

    def excerpt(self, text: str) -> tuple[str, tuple[int, int]] | None:
        """The text around the first place it is in ``text``, on one line, and where it is there (see
        ``Hit.found``); None when it is not there."""
        at = self.at(text)
        if at < 0:
            return None
        start = max(0, at - EXCERPT_CHARS // 3)
        end = start + EXCERPT_CHARS
        lead = "…" if start else ""
        before = text[start:at]
        found = len(lead) + len(_one_line(before)) + (1 if before.strip() and before[-1].isspace() else 0)
        found_end = len(lead) + len(_one_line(text[start : min(at + len(self.folded), end)]))
        excerpt = lead + _one_line(text[start:end]) + ("…" if end < len(text) else "")
        return excerpt, (found, max(found, found_end))


def _one_line(text: str) -> str:
    """``text`` with its runs of white space made single spaces, and none at its ends."""
    return " ".join(text.split())


def search(
    store: IndexStore,
    home: str | None,
    text: str,
    filters: Filters = Filters(),
    cancel: threading.Event | None = None,
) -> Iterator[Hit]:
    """Every prompt, call arguments and call output of the sessions the filters let through that
    holds ``text``, newest session first, in the order of the log. The calls must be indexed."""
    match = TextMatch(text)
    for info in sessions_with(store, home, filters):
        if cancel is not None and cancel.is_set():
            return
        try:
            lines = hit_lines(info.path, match)
        except OSError:
            continue
        if lines and info.path.endswith(".json"):
            yield from _document_hits(info, match, filters)
        elif lines:
            yield from _hits_in(store, info, lines, match, filters)


@dataclass(frozen=True)
class Looked:
    """Every session whose calls are read so far has been looked in."""

    read: list[SessionInfo]
    """The sessions whose calls were read since the last ``Looked`` (their summaries as they are now)."""


def found_while_reading(
    store: IndexStore,
    home: str | None,
    look: Callable[[Filters], Iterable[Finding]],
    filters: Filters = Filters(),
    workers: int | None = None,
    cancel: threading.Event | None = None,
    needs_calls: bool = True,
) -> Iterator[Finding | Looked]:
    """What ``look`` (``search`` or ``reads_of``, given filters) finds in the sessions of ``home`` while
    their calls are read: first in the sessions read already, then in each batch ``update_calls``
    reads, as soon as it is read (a ``Looked`` after each); last in any another process read
    meanwhile. Sessions come newest first within one look, not across them (``newest_session_first``
    puts them in order). A look that needs no calls (``needs_calls`` False: ``first_prompts``
    without a tool) looks in every session at once, and the calls are read after it. Run
    ``list_sessions`` first."""
    from agentpager.sessions_index.updating import unread, update_calls

    looked = frozenset(_paths(store, home))
    if needs_calls:
        looked -= {task.path for task, _, _ in unread(store, home)}
    yield from look(replace(filters, paths=looked))
    yield Looked([])
    for batch in update_calls(home, store, workers, cancel):
        paths = frozenset(info.path for info in batch) - looked
        if paths:
            yield from look(replace(filters, paths=paths))
            looked |= paths
        yield Looked(batch)
    if cancel is not None and cancel.is_set():
        return
    missed = frozenset(_paths(store, home)) - looked  # read by another process between the two ``unread``
    if missed:
        yield from look(replace(filters, paths=missed))


def newest_session_first(store: IndexStore, home: str | None, found: Iterable[Finding]) -> list[Finding]:
    """What ``found_while_reading`` found in the order ``search`` and ``reads_of`` give it: newest
    session first (each session's own in the order found)."""
    rank = {path: n for n, path in enumerate(_paths(store, home))}
    return sorted(found, key=lambda item: rank.get(item.session.path, len(rank)))


def _paths(store: IndexStore, home: str | None) -> list[str]:
    """The files of the sessions of ``home``, newest session first."""

    def read(db: sqlite3.Connection) -> list[str]:
        cursor = db.execute(f"SELECT path FROM sessions WHERE home = ? ORDER BY {newest_first()}", (home_key(home),))
        return [path for (path,) in cursor]

    return store.run(read)


def hit_lines(path: str, match: TextMatch) -> dict[int, tuple[int, int]]:
    """The lines of a file where one of the text's forms occurs: line number -> (start, end) bytes.

    The file is searched a block at a time (blocks overlap by a form's length, so a form across two
    is found; one line's other hits are passed over); only a file with a hit is read a second time,
    to number its lines. A long line is never held whole.
    """
    from agentpager.engine.textfile import open_regular

    with open_regular(path) as file:  # read by os.read and os.pread, a block at a time
        descriptor = file.fileno()
        hits = _hit_offsets(descriptor, match)
        return _numbered(descriptor, hits) if hits else {}


def _hit_offsets(descriptor: int, match: TextMatch) -> list[int]:
    """Where the first hit of each line with one is, in bytes."""
    hits: list[int] = []
    offset, overlap, skipping = 0, b"", False  # skipping: the rest of a line that has its hit
    while block := os.read(descriptor, BLOCK_BYTES):
        data, base = overlap + block, offset - len(overlap)
        position = 0
        if skipping:
            position = data.find(b"\n", len(overlap)) + 1
            skipping = position == 0
        while not skipping and (span := match.find(data, position)) is not None:
            hits.append(base + span[0])
            position = data.find(b"\n", span[1]) + 1
            skipping = position == 0
        offset += len(block)
        overlap = b"" if skipping else data[max(position, len(data) - match.longest + 1) :]
    return hits


def _numbered(descriptor: int, hits: list[int]) -> dict[int, tuple[int, int]]:
    """Each hit's line: its number and its (start, end) bytes, read in order up to the last hit's line."""
    found: dict[int, tuple[int, int]] = {}
    line, offset, start = 1, 0, 0  # ``start``: where the line ``offset`` is in begins
    for hit in hits:
        while offset < hit:  # count the lines up to the hit
            data = os.pread(descriptor, min(BLOCK_BYTES, hit - offset), offset)
            newlines = data.count(b"\n")
            if newlines:
                line += newlines
                start = offset + data.rfind(b"\n") + 1
            offset += len(data)
            if not data:
                break
        end = hit
        while data := os.pread(descriptor, BLOCK_BYTES, end):  # the hit's line goes on to its newline
            at = data.find(b"\n")
            if at >= 0:
                end += at
                break
            end += len(data)
        found[line] = (start, end)
    return found


def _hits_in(
    store: IndexStore, info: SessionInfo, lines: dict[int, tuple[int, int]], match: TextMatch, filters: Filters
) -> Iterator[Hit]:
    """The hits on these lines of one session, each checked against what the record holds (lines
    longer than LINE_READ_WHOLE are passed over)."""
    from agentpager.engine.textfile import open_regular
    from agentpager.logs.records import Location, Record, json_line
    from agentpager.transcripts.formats import collectors, feed

    places = _places(store, info.path, sorted(lines), filters)
    if not places:
        return
    collector_class = collectors()[info.agent]
    with open_regular(info.path) as file:
        for line in sorted(places):
            start, end = lines[line]
            if end - start > LINE_READ_WHOLE:
                continue
            try:
                value = json_line(os.pread(file.fileno(), end - start, start))
            except ValueError:
                continue
            collector = collector_class()
            feed(collector, Record(value, Location(line=line)))
            made = collector.parsed.calls
            for kind, number, tool, block in places[line]:
                texts: Sequence[str]
                if kind == "prompt":
                    texts = [event.text for event in collector.parsed.events if event.kind == "prompt"]
                elif kind == "arguments":  # ``block``: the call's place among the calls of its line
                    texts = _argument_texts(made[block].arguments) if block < len(made) else []
                else:
                    try:
                        texts = [collector_class.result_text(value, block)[0]]
                    except (LookupError, TypeError, AttributeError, ValueError):
                        texts = []
                excerpt = next((found for found in map(match.excerpt, texts) if found is not None), None)
                if excerpt is not None:
                    yield Hit(info, kind, line, number, tool, *excerpt)


def _document_hits(info: SessionInfo, match: TextMatch, filters: Filters) -> Iterator[Hit]:
    """The hits of a session that is one JSON document (small, and its records have no lines): read whole."""
    from agentpager.transcripts import TranscriptError, open_transcript

    try:
        transcript = open_transcript(info.path, subagents=False)
    except TranscriptError:
        return
    if not filters.tool:
        for event in transcript.events:
            excerpt = match.excerpt(event.text) if event.kind == "prompt" else None
            if excerpt is not None:
                yield Hit(info, "prompt", 0, None, "", *excerpt)
    for number, call in enumerate(transcript.calls):
        if filters.tool and call.tool != filters.tool:
            continue
        for kind, texts in (
            ("arguments", _argument_texts(call.arguments)),
            ("output", [transcript.recorded(call) or ""]),
        ):
            excerpt = next((found for found in map(match.excerpt, texts) if found is not None), None)
            if excerpt is not None:
                yield Hit(info, kind, 0, number, call.tool, *excerpt)  # type: ignore[arg-type]


def _places(
    store: IndexStore, path: str, lines: list[int], filters: Filters
) -> dict[int, list[tuple[Kind, int | None, str, int]]]:
    """What the index has on these lines of a log: (kind, call number, tool, result block) each."""

    def read(db: sqlite3.Connection) -> dict[int, list[tuple[Kind, int | None, str, int]]]:
        (session,) = db.execute("SELECT id FROM sessions WHERE path = ?", (path,)).fetchone() or (None,)
        places: dict[int, list[tuple[Kind, int | None, str, int]]] = {}
        wanted = set(lines)
        if not filters.tool:
            for (line,) in db.execute("SELECT line FROM prompts WHERE session = ?", (session,)):
                if line in wanted:
                    places.setdefault(line, []).append(("prompt", None, "", 0))
        rows = db.execute(
            "SELECT number, tool, line, result_line, result_block FROM calls WHERE session = ? ORDER BY number",
            (session,),
        )
        on_line: dict[int, int] = {}
        for number, tool, line, result_line, block in rows:
            rank = on_line[line] = on_line.get(line, -1) + 1
            if filters.tool and tool != filters.tool:
                continue
            if line in wanted:
                places.setdefault(line, []).append(("arguments", number, tool, rank))
            if result_line in wanted:
                places.setdefault(result_line, []).append(("output", number, tool, block))
        return places

    return store.run(read)


def _argument_texts(arguments: dict[str, Any] | str) -> list[str]:
    """The texts of a call's arguments: their JSON, then each name and text value."""
    if isinstance(arguments, str):
        return [arguments]
    texts = [json.dumps(arguments, ensure_ascii=False)]

    def walk(value: Any) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for name, member in value.items():
                texts.append(str(name))
                walk(member)
        elif isinstance(value, list):
            for element in value:
                walk(element)

    walk(arguments)
    return texts
