"""Every agent session on this machine: found where each agent keeps them, summed up from their
first and last lines, and cached so a listing of a thousand costs a ``stat`` each.

- Claude Code: ``~/.claude/projects/<project>/<session>.jsonl`` (``$CLAUDE_CONFIG_DIR`` instead of
  ``~/.claude``), subagents in ``<session>/subagents/``.
- Codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` (``$CODEX_HOME`` instead of ``~/.codex``),
  and the older ``sessions/rollout-*.json[l]`` directly in ``sessions/``.
- Gemini CLI: ``~/.gemini/tmp/<project>/chats/session-*.json[l]``; the project's directory is in
  ``<project>/.project_root`` when Gemini wrote one (else the directory name, a hash of it).

A summary reads the first and last 64 KiB of a JSON Lines session (agent, version, model, start,
end, the first prompt, the context of the last model turn) and counts its calls by searching its
bytes for the records that start one, without parsing them; a session that is one JSON document
is read whole. The cache (``sessions.json`` in the cache dir) is keyed by path, inode, size and
mtime; a session that grew is counted from where the last count stopped.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from agentpager.engine.cache import cache_root, write_atomically
from agentpager.transcripts import TranscriptError, open_transcript
from agentpager.transcripts.formats import COLLECTORS, Collector, feed
from agentpager.transcripts.records import BadRecord, Location, Record

EDGE_BYTES = 64 * 1024
_BLOCK = 1 << 20
CACHE_VERSION = 1
CALL_MARKERS = {
    "claude-code": (b'"type":"tool_use"', b'"type": "tool_use"'),
    "codex": tuple(
        marker
        for kind in (b"function_call", b"custom_tool_call", b"local_shell_call")
        for marker in (b'"type":"' + kind + b'"', b'"type": "' + kind + b'"')
    ),
    "gemini": (b'"functionResponse"',),
}
"""Byte strings that occur once per tool call, outside JSON strings (where quotes are escaped)."""


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
    calls: int = 0
    tokens: int | None = None
    """Tokens of context the last model turn sent (None when the end of the log records no usage)."""
    title: str = ""
    """The first prompt, on one line."""
    size: int = 0
    subagents: int = 0
    problem: str = ""
    """Why the session could not be summed up (it is still listed)."""


@dataclass(frozen=True)
class Found:
    path: str
    agent: str
    project_hint: str


def agent_homes(home: str | None = None) -> dict[str, str]:
    """Where each agent keeps its sessions, honouring CLAUDE_CONFIG_DIR and CODEX_HOME."""
    base = home or os.path.expanduser("~")
    return {
        "claude-code": os.environ.get("CLAUDE_CONFIG_DIR")
        if home is None and os.environ.get("CLAUDE_CONFIG_DIR")
        else os.path.join(base, ".claude"),  # type: ignore[dict-item]
        "codex": os.environ.get("CODEX_HOME")
        if home is None and os.environ.get("CODEX_HOME")
        else os.path.join(base, ".codex"),  # type: ignore[dict-item]
        "gemini": os.path.join(base, ".gemini"),
    }


def find_sessions(home: str | None = None) -> Iterator[Found]:
    """Every session file of every agent under ``home`` (default: the user's home)."""
    homes = agent_homes(home)
    claude = os.path.join(glob.escape(homes["claude-code"]), "projects")
    for path in glob.iglob(os.path.join(claude, "*", "*.jsonl")):
        if not os.path.basename(path).startswith("agent-"):
            yield Found(path, "claude-code", os.path.basename(os.path.dirname(path)))
    codex = os.path.join(glob.escape(homes["codex"]), "sessions")
    for pattern in ("*/*/*/rollout-*.jsonl", "rollout-*.jsonl", "rollout-*.json"):
        for path in glob.iglob(os.path.join(codex, pattern)):
            yield Found(path, "codex", "")
    gemini = os.path.join(glob.escape(homes["gemini"]), "tmp")
    for pattern in ("*/chats/session-*.jsonl", "*/chats/session-*.json"):
        for path in glob.iglob(os.path.join(gemini, pattern)):
            project = os.path.dirname(os.path.dirname(path))
            yield Found(path, "gemini", _project_root(project) or os.path.basename(project))


def _project_root(directory: str) -> str:
    try:
        with open(os.path.join(directory, ".project_root"), encoding="utf-8") as file:
            return file.read(4096).strip()
    except OSError:
        return ""


class SessionCache:
    """Summaries keyed by path, checked against the file's inode, size and mtime before use."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_root() / "sessions.json"
        self.entries: dict[str, dict] = {}
        self.changed = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") == CACHE_VERSION and isinstance(data.get("sessions"), dict):
                self.entries = data["sessions"]
        except (OSError, ValueError, AttributeError):
            pass

    def save(self) -> None:
        if self.changed:
            data = json.dumps({"version": CACHE_VERSION, "sessions": self.entries}, ensure_ascii=False)
            try:
                write_atomically(self.path, [data.encode("utf-8", "surrogatepass")])
            except OSError:
                pass  # a cache that cannot be written only costs time


def list_sessions(home: str | None = None, cache: SessionCache | None = None) -> list[SessionInfo]:
    """Every session, newest first (summaries from the cache when the file is unchanged)."""
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
            entry = _summarized(found, st, entry)
            cache.changed = True
        seen[found.path] = entry
        sessions.append(SessionInfo(**entry["info"]))
    if seen.keys() != cache.entries.keys():
        cache.changed = True
    cache.entries = seen
    cache.save()
    sessions.sort(key=lambda s: (s.ended or s.started, s.started), reverse=True)
    return sessions


def _summarized(found: Found, st: os.stat_result, old: dict | None) -> dict:
    """A cache entry for a session: a grown file is counted on from its old size."""
    stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
    grown = old is not None and old["stamp"][0] == st.st_ino and old["stamp"][1] <= st.st_size
    start = old["stamp"][1] if grown and old else 0
    try:
        info = summarize(found, st.st_size, counted=(start, old["info"]["calls"]) if grown and old else (0, 0))
        if grown and old:  # its start and title are where they were
            info.started, info.title = old["info"]["started"] or info.started, old["info"]["title"] or info.title
    except (OSError, ValueError) as error:
        info = SessionInfo(found.path, found.agent, found.project_hint, size=st.st_size, problem=str(error))
    return {"stamp": stamp, "info": asdict(info)}


def summarize(found: Found, size: int, counted: tuple[int, int] = (0, 0)) -> SessionInfo:
    """A session's summary from its first and last lines; ``counted``: calls already counted in
    its first bytes (a grown file's old size and count)."""
    if found.path.endswith(".json"):
        return _summarize_whole(found, size)
    with open(found.path, "rb") as file:
        head = file.read(min(size, EDGE_BYTES))
        file.seek(max(0, size - EDGE_BYTES))
        tail = file.read()
        calls = counted[1] + _count(file, CALL_MARKERS[found.agent], counted[0], size)
    first = _collector(found.agent, _lines(head, cut_start=False, cut_end=size > len(head)))
    last = _collector(found.agent, _lines(tail, cut_start=size > len(tail), cut_end=False))
    head_facts, tail_facts = first.parsed, last.parsed
    prompt = next((event.text for event in head_facts.events if event.kind == "prompt"), "")
    turn = tail_facts.turns[-1] if tail_facts.turns and tail_facts.turns[-1].context else None
    return SessionInfo(
        found.path,
        found.agent,
        head_facts.cwd or tail_facts.cwd or found.project_hint,
        head_facts.session_id or tail_facts.session_id or os.path.splitext(os.path.basename(found.path))[0],
        tail_facts.version or head_facts.version,
        tail_facts.model or head_facts.model,
        head_facts.started,
        tail_facts.ended or head_facts.ended,
        calls,
        None if turn is None else turn.context + turn.output,
        " ".join(prompt.split())[:200],
        size,
        len(COLLECTORS[found.agent].subagent_files(found.path, {})),
    )


def _summarize_whole(found: Found, size: int) -> SessionInfo:
    """A session that is one JSON document, read whole (the older, smaller formats)."""
    try:
        transcript = open_transcript(found.path, subagents=False)
    except TranscriptError as error:
        raise ValueError(str(error)) from None
    parsed = transcript.parsed
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
        len(transcript.calls),
        None if turn is None else turn.context + turn.output,
        " ".join(prompt.split())[:200],
        size,
    )


def _lines(data: bytes, cut_start: bool, cut_end: bool) -> Iterator[Record | BadRecord]:
    """The whole JSON lines in a piece of a file (a line cut by the piece's edge is left out)."""
    lines = data.split(b"\n")
    if cut_start:
        lines = lines[1:]
    if cut_end:
        lines = lines[:-1]
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                yield Record(json.loads(line), Location(line=number))
            except ValueError:
                continue


def _collector(agent: str, records: Iterable[Record | BadRecord]) -> Collector:
    collector = COLLECTORS[agent]()
    for record in records:
        feed(collector, record)
    return collector


def _count(file, markers: tuple[bytes, ...], counted_to: int, end: int) -> int:  # noqa: ANN001 - a binary file
    """Occurrences of ``markers`` that end after byte ``counted_to`` and by ``end``, a block at a
    time (an occurrence is counted in the block it starts in; blocks overlap by a marker's length)."""
    overlap = max(len(marker) for marker in markers) - 1
    count, position = 0, max(0, counted_to - overlap)
    while position < end:
        file.seek(position)
        block = file.read(min(_BLOCK + overlap, end - position))
        limit = min(_BLOCK, end - position)
        for marker in markers:
            low = max(0, counted_to - len(marker) + 1 - position)
            count += block.count(marker, low, limit + len(marker) - 1)
        position += _BLOCK
    return count


def duration_of(info: SessionInfo) -> float | None:
    """Seconds from the session's first record to its last, when both have a time."""
    try:
        started = datetime.fromisoformat(info.started.replace("Z", "+00:00"))
        ended = datetime.fromisoformat(info.ended.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (ended - started).total_seconds())
