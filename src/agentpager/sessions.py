"""Every agent session on this machine: found where each agent keeps them (``Agent.sessions``: Claude
Code's in ``~/.claude/projects/``, Codex's in ``~/.codex/sessions/``, Gemini CLI's in ``~/.gemini/tmp/``),
summed up from their two ends, counted in the background, and cached.

The first look at a session reads its first and last EDGE_BYTES (all of it when it is no bigger
than twice that): agent, version, model, start, end, the first prompt, and the context of the last
model turn, from the last lines back to the first that records usage. Its calls are counted by
searching its bytes for the records that start one, without parsing them; that reads it whole, so
it is left for ``count_sessions`` (the session browser runs it in a worker; ``agentpager sessions
--full`` before it prints). The cache (``sessions.json`` in the cache dir) is keyed by path, inode,
size and mtime; a session that grew by at most EDGE_BYTES is counted on from where the last count
stopped.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from agentpager.agents import AGENTS
from agentpager.engine.cache import cache_root, write_atomically
from agentpager.logs.records import Location, Record, json_line
from agentpager.logs.skim import Skimmer
from agentpager.transcripts import TranscriptError, open_transcript
from agentpager.transcripts.formats import Collector, Parsed, collectors, feed

EDGE_BYTES = 64 * 1024
_BLOCK = 1 << 20
CACHE_VERSION = 2
RENAMED_AGENTS = {"gemini": "gemini-cli"}
"""Agents named otherwise in caches written before (Gemini CLI's format was "gemini")."""
HEAD_RECORDS = 16
"""The first look parses at most this many records from a session's start for its first prompt."""


@dataclass
class SessionInfo:
    path: str
    agent: str
    project: str
    session_id: str = ""
    version: str = ""
    model: str = ""
    started: str = ""
    ended: str = ""
    calls: int | None = None
    """None until the session is counted (the first look reads only its ends)."""
    tokens: int | None = None
    """Tokens of context the last model turn sent: None when the log records no usage, or (not
    ``counted``) when its last lines do not."""
    title: str = ""
    """The first prompt, on one line."""
    size: int = 0
    subagents: int = 0
    problem: str = ""
    """Why the session could not be summed up (it is still listed)."""
    counted: bool = False
    """Whether ``calls`` and ``tokens`` are final: the whole session was read."""


@dataclass(frozen=True)
class Found:
    path: str
    agent: str
    project_hint: str


def find_sessions(home: str | None = None) -> Iterator[Found]:
    """Every session file of every agent under ``home`` (default: the user's home), where each agent
    keeps them (``Agent.sessions``), or as the agent writes them from where it keeps them."""
    for agent in AGENTS:
        where = agent.sessions
        if where is None:
            continue
        if where.find is not None:
            yield from (Found(path, agent.id, project) for path, project in where.find(home))
            continue
        directory = glob.escape(where.directory_in(home))
        for pattern in where.patterns:
            for path in glob.iglob(os.path.join(directory, pattern)):
                if not (where.ignored and fnmatch.fnmatch(os.path.basename(path), where.ignored)):
                    yield Found(path, agent.id, where.project(path))


class SessionCache:
    """Summaries keyed by path, checked against the file's inode, size and mtime before use."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_root() / "sessions.json"
        self.entries: dict[str, dict] = {}
        self.changed = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") == CACHE_VERSION and isinstance(data.get("sessions"), dict):
                for entry in data["sessions"].values():
                    info = entry["info"]
                    info["agent"] = RENAMED_AGENTS.get(info["agent"], info["agent"])
                self.entries = data["sessions"]
        except (OSError, ValueError, AttributeError, KeyError, TypeError):
            pass

    def save(self) -> None:
        if self.changed:
            data = json.dumps({"version": CACHE_VERSION, "sessions": self.entries}, ensure_ascii=False)
            try:
                write_atomically(self.path, [data.encode("utf-8", "surrogatepass")])
            except OSError:
                pass  # a cache that cannot be written only costs time
            self.changed = False


def list_sessions(home: str | None = None, cache: SessionCache | None = None, count: bool = False) -> list[SessionInfo]:
    """Every session, newest first, from the cache when the file is unchanged, else from a first
    look at its ends; ``count``: count every session not yet counted before returning."""
    cache = cache or SessionCache()
    seen: dict[str, dict] = {}
    sessions = []
    for found in find_sessions(home):
        try:
            st = os.stat(found.path)
        except OSError:
            continue
        stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
        entry = cache.entries.get(found.path)
        if entry is None or entry["stamp"] != stamp:
            entry = _first_look(found, st, entry)
            cache.changed = True
        seen[found.path] = entry
        sessions.append(SessionInfo(**entry["info"]))
    if seen.keys() != cache.entries.keys():
        cache.changed = True
    cache.entries = seen
    if count:
        counted = {info.path: info for info in count_sessions(sessions, cache)}
        sessions = [counted.get(info.path, info) for info in sessions]
    cache.save()
    sessions.sort(key=lambda s: (s.ended or s.started, s.started), reverse=True)
    return sessions


def count_sessions(sessions: Iterable[SessionInfo], cache: SessionCache) -> Iterator[SessionInfo]:
    """Each session not yet counted, counted (read whole) and kept in ``cache`` (save it after)."""
    for info in sessions:
        if info.counted or info.problem:
            continue
        entry = cache.entries.get(info.path)
        try:
            st = os.stat(info.path)
        except OSError:
            continue
        if entry is None or entry["stamp"] != [st.st_ino, st.st_size, st.st_mtime_ns]:
            continue  # changed since it was listed: the next listing looks at it again
        try:
            counted = _counted(info, st.st_size)
        except (OSError, ValueError) as error:
            counted = replace(info, problem=str(error))
        entry["info"] = vars(counted).copy()
        cache.changed = True
        yield counted


def _first_look(found: Found, st: os.stat_result, old: dict | None) -> dict:
    """A cache entry for a session from its ends; a session that grew a little is counted on."""
    stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
    try:
        info = summarize(found, st.st_size)
        grown = old is not None and old["stamp"][0] == st.st_ino and old["stamp"][1] <= st.st_size
        if grown and old is not None:
            before = SessionInfo(**old["info"])
            info.started, info.title = before.started or info.started, before.title or info.title
            if not info.counted and before.counted and st.st_size - old["stamp"][1] <= EDGE_BYTES:
                with open(found.path, "rb") as file:
                    added = _count(file, collectors()[found.agent].call_markers, old["stamp"][1], st.st_size)
                info.calls = (before.calls or 0) + added
                info.tokens = before.tokens if info.tokens is None else info.tokens
                info.counted = True  # what was added is within the last EDGE_BYTES, all looked at
    except (OSError, ValueError) as error:
        info = SessionInfo(found.path, found.agent, found.project_hint, size=st.st_size, problem=str(error))
    return {"stamp": stamp, "info": vars(info).copy()}


def summarize(found: Found, size: int) -> SessionInfo:
    """A session's summary from its first and last EDGE_BYTES (whole when it is not bigger than both)."""
    if found.path.endswith(".json"):
        return _summarize_document(found, size)
    whole = size <= 2 * EDGE_BYTES
    with open(found.path, "rb") as file:
        head = file.read(size if whole else EDGE_BYTES)
        if whole:
            tail = head
        else:
            file.seek(size - EDGE_BYTES)
            tail = file.read(EDGE_BYTES)
    first = _head_facts(found.agent, head, cut_end=not whole)
    last, turn = _tail_facts(found.agent, tail, cut_start=not whole, model_known=bool(first.parsed.model))
    prompt = next((event.text for event in first.parsed.events if event.kind == "prompt"), "")
    head_facts, tail_facts = first.parsed, last
    return SessionInfo(
        found.path,
        found.agent,
        head_facts.cwd or tail_facts.cwd or found.project_hint,
        head_facts.session_id or tail_facts.session_id or os.path.splitext(os.path.basename(found.path))[0],
        tail_facts.version or head_facts.version,
        tail_facts.model or head_facts.model,
        head_facts.started or tail_facts.started,
        tail_facts.ended or head_facts.ended,
        _count_bytes(head, collectors()[found.agent].call_markers) if whole else None,
        turn,
        " ".join(prompt.split())[:200],
        size,
        len(collectors()[found.agent].subagent_files(found.path, {})),
        counted=whole,
    )


def _head_facts(agent: str, head: bytes, cut_end: bool) -> Collector:
    """A collector fed the session's first record and then, up to its first prompt, the records
    that can hold one (found by the format's ``prompt_markers``; HEAD_RECORDS at most). A first
    line longer than the head is skimmed: its members before the cut are what is needed."""
    collector_class = collectors()[agent]
    collector = collector_class()
    if cut_end and b"\n" not in head:
        found = Skimmer().skim(head.decode("utf-8", "replace").lstrip("\ufeff"), "")
        if found is not None:
            feed(collector, Record(found[0], Location(line=1)))
        return collector
    end = head.find(b"\n")
    first = _record(head if end < 0 else head[:end], 1)
    if first is not None:
        feed(collector, first)
    for _ in range(HEAD_RECORDS):
        if collector.turn or end < 0:  # the first prompt started the first turn
            break
        places = [at for marker in collector_class.prompt_markers if (at := head.find(marker, end)) >= 0]
        if not places:
            break
        start = head.rfind(b"\n", 0, min(places)) + 1
        end = head.find(b"\n", start)
        if end < 0 and cut_end:
            break  # cut by the head's end
        record = _record(head[start : len(head) if end < 0 else end], 0)
        if record is not None:
            feed(collector, record)
    return collector


def _tail_facts(agent: str, tail: bytes, cut_start: bool, model_known: bool) -> tuple[Parsed, int | None]:
    """What the session's last record says (when it ended, the agent's version, the model), and the
    context plus output of its last model turn that records usage: only the lines that hold one of
    the format's ``turn_markers`` are parsed, from the end back."""
    collector_class = collectors()[agent]
    facts = Parsed(agent)
    first = tail.find(b"\n") + 1 if cut_start else 0
    if cut_start and not first:
        return facts, None  # no whole line
    turn = None
    end = len(tail)
    line = _line_before(tail, end, first)  # the last record
    while line is not None:
        start, stop = line
        record = _record(tail[start:stop], 0)
        if record is not None:
            collector = collector_class()
            feed(collector, record)
            parsed = collector.parsed
            facts.ended = facts.ended or parsed.ended
            facts.version = facts.version or parsed.version
            facts.model = facts.model or parsed.model
            facts.cwd = facts.cwd or parsed.cwd
            facts.session_id = facts.session_id or parsed.session_id
            last = next((t for t in reversed(parsed.turns) if t.context), None)
            if turn is None and last is not None:
                turn = last.context + last.output
            if turn is not None and (facts.model or model_known):
                break
        marker = max(tail.rfind(marker, first, start) for marker in collector_class.turn_markers)
        line = None if marker < 0 else _line_before(tail, tail.find(b"\n", marker), first)
    return facts, turn


def _line_before(data: bytes, end: int, first: int) -> tuple[int, int] | None:
    """The span of the last line that is not blank and ends by ``end`` (-1: the end of ``data``),
    starting at ``first`` or later."""
    end = len(data) if end < 0 else end
    while end > first:
        start = data.rfind(b"\n", first, end) + 1 or first
        if data[start:end].strip():
            return start, end
        end = start - 1
    return None


def _record(line: bytes, number: int) -> Record | None:
    try:
        return Record(json_line(line), Location(line=number))
    except ValueError:
        return None


def _summarize_document(found: Found, size: int) -> SessionInfo:
    """A session that is one JSON document (the older, smaller formats): read whole when it is
    small, else summed up from its head (its counts wait for ``count_sessions``)."""
    if size <= 2 * EDGE_BYTES:
        return _whole_document(found, size)
    with open(found.path, "rb") as file:
        head = file.read(EDGE_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
    collector = collectors()[found.agent]()
    skimmed = Skimmer().skim(head, "")
    for key, value in (skimmed[0] if skimmed else {}).items():
        for element in value if isinstance(value, list) else [{key: value}]:
            feed(collector, Record(element, Location(), key if isinstance(value, list) else ""))
    return _document_summary(found, collector.parsed, size)


def _whole_document(found: Found, size: int) -> SessionInfo:
    try:
        transcript = open_transcript(found.path, subagents=False)
    except TranscriptError as error:
        raise ValueError(str(error)) from None
    return _document_summary(found, transcript.parsed, size, len(transcript.calls))


def _document_summary(found: Found, parsed: Parsed, size: int, calls: int | None = None) -> SessionInfo:
    """The summary of a document read as far as ``parsed`` says; counted when its ``calls`` are."""
    prompt = next((event.text for event in parsed.events if event.kind == "prompt"), "")
    turn = next((turn for turn in reversed(parsed.turns) if turn.context), None)
    return SessionInfo(
        found.path,
        found.agent,
        parsed.cwd or found.project_hint,
        parsed.session_id,
        parsed.version,
        parsed.model,
        parsed.started,
        parsed.ended,
        calls,
        None if turn is None or calls is None else turn.context + turn.output,
        " ".join(prompt.split())[:200],
        size,
        counted=calls is not None,
    )


def _counted(info: SessionInfo, size: int) -> SessionInfo:
    """``info`` with its calls counted and, when its last lines had none, the last recorded usage
    found further back: the session read whole (JSON Lines by their bytes, not parsed)."""
    found = Found(info.path, info.agent, info.project)
    if info.path.endswith(".json"):
        whole = _whole_document(found, size)
        return replace(whole, project=info.project, title=info.title or whole.title)
    with open(info.path, "rb") as file:
        calls = _count(file, collectors()[info.agent].call_markers, 0, size)
        tokens = info.tokens
        back = 4 * EDGE_BYTES
        while tokens is None and back < 2 * size:
            file.seek(max(0, size - back))
            _, tokens = _tail_facts(info.agent, file.read(min(back, size)), back < size, True)
            back *= 4
    return replace(info, calls=calls, tokens=tokens, counted=True)


def _count(file: BinaryIO, markers: tuple[bytes, ...], counted_to: int, end: int) -> int:
    """Occurrences of ``markers`` that end after byte ``counted_to`` and by ``end``, a block at a
    time (an occurrence is counted in the block it starts in; blocks overlap by a marker's length)."""
    overlap = max(len(marker) for marker in markers) - 1
    count, position = 0, max(0, counted_to - overlap)
    while position < end:
        file.seek(position)
        block = file.read(min(_BLOCK + overlap, end - position))
        count += _count_bytes(block, markers, max(0, counted_to - position), min(_BLOCK, end - position))
        position += _BLOCK
    return count


def _count_bytes(data: bytes, markers: tuple[bytes, ...], after: int = 0, starting_before: int | None = None) -> int:
    """Occurrences of ``markers`` in ``data`` that end after ``after`` and start before ``starting_before``."""
    limit = len(data) if starting_before is None else starting_before
    return sum(data.count(marker, max(0, after - len(marker) + 1), limit + len(marker) - 1) for marker in markers)


def duration_of(info: SessionInfo) -> float | None:
    """Seconds from the session's first record to its last, when both have a time."""
    try:
        started = datetime.fromisoformat(info.started.replace("Z", "+00:00"))
        ended = datetime.fromisoformat(info.ended.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (ended - started).total_seconds())
