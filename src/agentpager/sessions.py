"""Every agent session on this machine: found where each agent keeps them (``Agent.sessions``: Claude
Code's in ``~/.claude/projects/``, Codex's in ``~/.codex/sessions/``, Gemini CLI's in ``~/.gemini/tmp/``,
OpenCode's exported from its store), summed up from their two ends.

The first look at a session reads its first and last EDGE_BYTES at most (all of it when it is no
bigger than twice that; else its ends a little at a time, as far as what is sought lies): agent,
version, model, cwd, branch, start, end, the first prompt, and the context of the last model turn,
from the last lines back to the first that records usage. A session read whole has its calls
counted by searching its bytes for the records that start one, without parsing them; the calls of
the others come from reading them whole, in ``agentpager.sessions_index``, which keeps every
session's summary and calls.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from agentpager.agents import AGENTS

if TYPE_CHECKING:  # imported where a session is summed up: listing unchanged sessions needs none of it
    from agentpager.logs.records import Record
    from agentpager.transcripts.formats import Collector, Event, ModelTurn, Parsed

T = TypeVar("T")
EDGE_BYTES = 64 * 1024
FIRST_EDGE = 16 * 1024
"""A bigger session's ends are read this much first, then twice as much while what is looked for
may lie beyond (``_grown``): most first prompts and last turns are whole in it."""
TITLE_CHARS = 200
LOOKED_CHARS = 1024
"""A summary looks at no string past this many characters (a title at its prompt's first
``4 * TITLE_CHARS``): longer ones are cut before the records are parsed, a third of their bytes."""
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
    """Tokens of context the last model turn sent, and of its reply (what the context came to; ``replay
    --context`` shows the turn's context without the reply): None when the log records no usage, or (not
    ``counted``) when its last lines do not."""
    title: str = ""
    """The first prompt, on one line."""
    size: int = 0
    subagents: int = 0
    """Subagents with transcripts of their own (known once the session's calls are read)."""
    problem: str = ""
    """Why the session could not be summed up (it is still listed)."""
    counted: bool = False
    """Whether ``calls`` and ``tokens`` are final: the whole session was read."""
    cwd: str = ""
    """The directory the agent worked in, where the log says."""
    branch: str = ""
    """The git branch, where the log says."""


class Found(NamedTuple):
    path: str
    agent: str
    project_hint: str


def session_agents() -> list[str]:
    """The ids of the agents whose sessions are found (what ``--agent`` and ``agent:`` take)."""
    return [agent.id for agent in AGENTS if agent.sessions is not None]


def session_directories(home: str | None = None) -> list[str]:
    """The directory each agent keeps its sessions in under ``home`` (default: the user's home)."""
    return [agent.sessions.directory_in(home) for agent in AGENTS if agent.sessions is not None]


def find_sessions(home: str | None = None) -> Iterator[Found]:
    """Every session file of every agent under ``home`` (default: the user's home): the files that
    match the agent's patterns in its directory (``Agent.sessions``), or those it writes from where
    it keeps them (``Sessions.find``). Walked with ``os.scandir``, a directory at a time, the project
    asked once per directory: a third of ``glob``'s time for the 20,000 sessions of a listing."""
    for agent in AGENTS:
        where = agent.sessions
        if where is None:
            continue
        if where.find is not None:
            yield from (Found(path, agent.id, project) for path, project in where.find(home) if _named(path))
            continue
        for pattern in where.patterns:
            *parts, files = pattern.split("/")
            directories = [where.directory_in(home)]
            for part in parts:
                directories = [path for directory in directories for path in _matching(directory, part)]
            for directory in directories:
                paths = [path for path in _matching(directory, files, where.ignored) if _named(path)]
                project = where.project(paths[0]) if paths else ""
                yield from (Found(path, agent.id, project) for path in paths)


def _named(path: str) -> bool:
    """Whether the path is text (no agent names a session's file in bytes that are not UTF-8; the
    index keeps paths as text, so such a file is left out rather than ending the listing)."""
    if path.isascii():
        return True
    try:
        path.encode()
    except UnicodeEncodeError:
        return False
    return True


def _matching(directory: str, pattern: str, ignored: str = "") -> list[str]:
    """The paths of the entries of ``directory`` whose names match ``pattern`` and not ``ignored``, as
    ``glob`` finds them (a wildcard leaves hidden names out); none when it is not a directory."""
    try:
        names = os.listdir(directory)  # the order of os.scandir, without an object per entry
    except OSError:
        return []
    if pattern[0] != ".":
        names = [name for name in names if name[0] != "."]
    names = fnmatch.filter(names, pattern)
    if ignored:
        left_out = set(fnmatch.filter(names, ignored))
        names = [name for name in names if name not in left_out]
    prefix = os.path.join(directory, "")
    return [prefix + name for name in names]


def summarize(found: Found, size: int) -> SessionInfo:
    """A session's summary from its first and last EDGE_BYTES (whole when it is not bigger than both)."""
    from agentpager.engine.textfile import regular_descriptor
    from agentpager.transcripts.formats import collectors

    if found.path.endswith(".json"):
        return _summarize_document(found, size)
    agent = found.agent
    whole = size <= 2 * EDGE_BYTES
    descriptor = regular_descriptor(found.path)  # read by os.pread: a third less than the buffered read
    try:
        if whole:
            head = os.pread(descriptor, size, 0)
            first = _head_facts(agent, head, cut_end=False)[0]
            last, turn = _tail_facts(agent, head, cut_start=False, model_known=bool(first.parsed.model))[0]
        else:
            first = _grown(lambda edge: _head_facts(agent, os.pread(descriptor, edge, 0), cut_end=True))
            known = bool(first.parsed.model)
            last, turn = _grown(
                lambda edge: _tail_facts(agent, os.pread(descriptor, edge, size - edge), True, model_known=known)
            )
    finally:
        os.close(descriptor)
    prompt = next((event.text for event in first.parsed.events if event.kind == "prompt"), "")
    head_facts, tail_facts = first.parsed, last
    cwd = head_facts.cwd or tail_facts.cwd or ""
    return SessionInfo(
        found.path,
        found.agent,
        cwd or found.project_hint,
        head_facts.session_id or tail_facts.session_id or os.path.splitext(os.path.basename(found.path))[0],
        tail_facts.version or head_facts.version,
        tail_facts.model or head_facts.model,
        head_facts.started or tail_facts.started,
        tail_facts.ended or head_facts.ended,
        _count_bytes(head, collectors()[agent].call_markers) if whole else None,
        turn,
        title_of(prompt),
        size,
        counted=whole,
        cwd=cwd,
        branch=tail_facts.branch or head_facts.branch,
    )


def _grown(look: Callable[[int], tuple[T, bool]]) -> T:
    """What ``look(edge)`` finds in a session's first or last ``edge`` bytes: FIRST_EDGE, then twice
    as many while it says that what it looks for may lie beyond them, up to EDGE_BYTES (the answer
    is then the one EDGE_BYTES gives)."""
    edge = FIRST_EDGE
    while True:
        found, whole = look(edge)
        if whole or edge >= EDGE_BYTES:
            return found
        edge = min(2 * edge, EDGE_BYTES)


def title_of(prompt: str) -> str:
    """A prompt's first ``4 * TITLE_CHARS`` characters on one line, cut to TITLE_CHARS (prompts of
    10,000 characters are common). The words of a shorter start are the start of those of a longer
    one: its first half is looked at first, and is enough when it makes a whole title."""
    title = " ".join(prompt[: 2 * TITLE_CHARS].split())
    if len(title) < TITLE_CHARS:
        title = " ".join(prompt[: 4 * TITLE_CHARS].split())
    return title[:TITLE_CHARS]


def _head_facts(agent: str, head: bytes, cut_end: bool) -> tuple[Collector, bool]:
    """A collector fed the session's first record and then, up to its first prompt, the records
    that can hold one (found by the format's ``prompt_markers``; HEAD_RECORDS at most). A first
    line longer than the head is skimmed: its members before the cut are what is needed. With it,
    whether a longer head would give the same (False when the head's cut may hide what is sought)."""
    from agentpager.logs.records import Location, Record
    from agentpager.logs.skim import Skimmer
    from agentpager.transcripts.formats import collectors, feed

    collector_class = collectors()[agent]
    collector = collector_class()
    if cut_end and b"\n" not in head:
        found = Skimmer().skim(head.decode("utf-8", "replace").lstrip("\ufeff"), "")
        if found is not None:
            feed(collector, Record(found[0], Location(line=1)))
        return collector, False
    end = head.find(b"\n")
    first = _record(head if end < 0 else head[:end], 1)
    if first is not None:
        feed(collector, first)
    for _ in range(HEAD_RECORDS):
        if collector.prompt or end < 0:  # the first prompt was read
            return collector, True
        places = [at for marker in collector_class.prompt_markers if (at := head.find(marker, end)) >= 0]
        if not places:
            return collector, not cut_end
        start = head.rfind(b"\n", 0, min(places)) + 1
        end = head.find(b"\n", start)
        if end < 0 and cut_end:
            return collector, False  # cut by the head's end
        record = _record(head[start : len(head) if end < 0 else end], 0)
        if record is not None:
            feed(collector, record)
    return collector, True


def _tail_facts(
    agent: str, tail: bytes, cut_start: bool, model_known: bool
) -> tuple[tuple[Parsed, int | None], bool]:
    """What the session's last record says (when it ended, the agent's version, the model), and the
    context plus output of its last model turn that records usage: only the lines that hold one of
    the format's ``turn_markers`` are parsed, from the end back. With them, whether a longer tail
    would give the same (False when the lines looked at ran out before that turn and the model)."""
    from agentpager.transcripts.formats import Parsed, collectors, feed

    collector_class = collectors()[agent]
    facts = Parsed(agent)
    first = tail.find(b"\n") + 1 if cut_start else 0
    if cut_start and not first:
        return (facts, None), False  # no whole line
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
            facts.branch = facts.branch or parsed.branch
            last = next((t for t in reversed(parsed.turns) if t.context), None)
            if turn is None and last is not None:
                turn = last.context + last.output
            if turn is not None and (facts.model or model_known):
                return (facts, turn), True
        marker = max(tail.rfind(marker, first, start) for marker in collector_class.turn_markers)
        line = None if marker < 0 else _line_before(tail, tail.find(b"\n", marker), first)
    return (facts, turn), not cut_start


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
    """The record of ``line``, its strings cut to LOOKED_CHARS."""
    from agentpager.engine.jsontext import shortened
    from agentpager.logs.records import Location, Record, json_line

    try:
        return Record(json_line(shortened(line, LOOKED_CHARS)), Location(line=number))
    except ValueError:
        return None


def _summarize_document(found: Found, size: int) -> SessionInfo:
    """A session that is one JSON document (the older, smaller formats): read whole when it is
    small, else summed up from its head (its calls are counted when the index reads it whole)."""
    from agentpager.engine.textfile import open_regular
    from agentpager.logs.records import Location, Record
    from agentpager.logs.skim import Skimmer
    from agentpager.transcripts.formats import collectors, feed

    if size <= 2 * EDGE_BYTES:
        return _whole_document(found, size)
    with open_regular(found.path) as file:
        head = file.read(EDGE_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
    collector = collectors()[found.agent]()
    skimmed = Skimmer().skim(head, "")
    for key, value in (skimmed[0] if skimmed else {}).items():
        for element in value if isinstance(value, list) else [{key: value}]:
            feed(collector, Record(element, Location(), key if isinstance(value, list) else ""))
    return _document_summary(found, collector.parsed, size)


def _whole_document(found: Found, size: int) -> SessionInfo:
    from agentpager.transcripts import TranscriptError, open_transcript

    try:
        transcript = open_transcript(found.path, subagents=False)
    except TranscriptError as error:
        raise ValueError(str(error)) from None
    # The conversation and turns are in the transcript's index (the collector's lists were moved there).
    return _document_summary(found, transcript.parsed, size, len(transcript.calls), transcript.events, transcript.turns)


def _document_summary(
    found: Found,
    parsed: Parsed,
    size: int,
    calls: int | None = None,
    events: Sequence[Event] | None = None,
    turns: Sequence[ModelTurn] | None = None,
) -> SessionInfo:
    """The summary of a document read as far as ``parsed`` says (or ``events`` and ``turns``, when
    given); counted when its ``calls`` are."""
    prompt = next((event.text for event in (parsed.events if events is None else events) if event.kind == "prompt"), "")
    turn = next((turn for turn in reversed(parsed.turns if turns is None else turns) if turn.context), None)
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
        title_of(prompt),
        size,
        counted=calls is not None,
        cwd=parsed.cwd or "",
        branch=parsed.branch,
    )


def _count_bytes(data: bytes, markers: tuple[bytes, ...]) -> int:
    from agentpager.engine.jsontext import occurrences

    return sum(occurrences(data, marker) for marker in markers)


def duration_of(info: SessionInfo) -> float | None:
    """Seconds from the session's first record to its last, when both have a time (and both say
    their offset from UTC, or neither)."""
    try:
        started = datetime.fromisoformat(info.started.replace("Z", "+00:00"))
        ended = datetime.fromisoformat(info.ended.replace("Z", "+00:00"))
        return max(0.0, (ended - started).total_seconds())
    except (ValueError, TypeError):  # TypeError: one has an offset, the other not
        return None
