"""Crafted sessions: real logs (and a Gemini CLI chat, one JSON document) with any part of any record replaced by any JSON value (or cut, or
doubled) are read by every layer that reads sessions (the transcript, its replay and context, an
export, the listing, the calls index, a search) without an error other than the one each layer
says it raises, and within the bounds of the log."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sessions_index import SESSION

from agentpager.export import ExportError, Format, export_session
from agentpager.sessions import Found, summarize
from agentpager.sessions_index.calls import Task, read_session
from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.search import search
from agentpager.sessions_index.store import IndexStore
from agentpager.sessions_index.updating import update_calls
from agentpager.transcripts import TranscriptError, open_transcript
from agentpager.transcripts.context import AgentContext
from agentpager.transcripts.replay import Replayer

SAMPLES = Path(__file__).parent / "sessions"


def _records(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


SEEDS: dict[str, tuple[str, list[Any]]] = {
    # name: (where the log lies under a home, its records); the agent is the name's first word
    "claude-code project": (".claude/projects/-home-me-shop/s.jsonl", SESSION),
    "claude-code stream": (".claude/projects/-p/c.jsonl", _records((SAMPLES / "claude-stream-subagent.jsonl").read_text())),
    "claude-code compaction": (
        ".claude/projects/-p/k.jsonl",
        _records((SAMPLES / "claude-stream-compaction.jsonl").read_text()),
    ),
    "codex rollout": (
        ".codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-x.jsonl",
        _records((SAMPLES / "rtchess-excerpt.jsonl").read_text()),
    ),
    "gemini-cli chat": (
        ".gemini/tmp/proj/chats/session-2026-03-01T00-00-s1.json",
        [
            {
                "sessionId": "s1",
                "projectHash": "h",
                "startTime": "2026-03-01T00:00:00Z",
                "messages": [
                    {"id": "1", "timestamp": "2026-03-01T00:00:00Z", "type": "user", "content": "look"},
                    {
                        "id": "2",
                        "timestamp": "2026-03-01T00:00:01Z",
                        "type": "gemini",
                        "content": "",
                        "tokens": {"input": 900, "output": 20, "cached": 100, "total": 1020},
                        "toolCalls": [
                            {
                                "id": "r1",
                                "name": "read_file",
                                "args": {"file_path": "/home/me/proj/a.txt", "offset": 1, "limit": 2},
                                "result": [
                                    {"functionResponse": {"id": "r1", "name": "read_file", "response": {"output": "x"}}}
                                ],
                                "status": "success",
                            }
                        ],
                    },
                ],
            }
        ],
    ),
    "codex exec": (
        ".codex/sessions/2026/01/02/rollout-2026-01-02T11-00-00-y.jsonl",
        _records((SAMPLES / "codex-exec-review.jsonl").read_text()),
    ),
}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*map(_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(_keys, value))
    return set()


def _words(value: Any) -> set[str]:
    """The short strings of the seeds: the formats' type names, roles, ids, paths."""
    if isinstance(value, dict):
        return set().union(*map(_words, value.values()))
    if isinstance(value, list):
        return set().union(*map(_words, value))
    return {value} if isinstance(value, str) and len(value) < 40 else set()


KEYS = sorted(set().union(*(_keys(records) for _, records in SEEDS.values())))
WORDS = sorted(set().union(*(_words(records) for _, records in SEEDS.values())))

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.sampled_from([0, -1, 1, 2**31, 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=30),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The places of every part of ``value`` below it."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [place for key, child in items for place in [(*at, key), *_paths(child, (*at, key))]]


def _replace(value: Any, data: st.DataObject) -> Any:
    """``value`` with one of its parts (or itself) replaced by any value, or removed."""
    places = _paths(value)
    if not places:
        return data.draw(VALUES)
    *above, last = data.draw(st.sampled_from(places))
    value = json.loads(json.dumps(value))  # a copy
    parent = value
    for key in above:
        parent = parent[key]
    if isinstance(parent, dict) and data.draw(st.integers(0, 5)) == 0:
        del parent[last]
    else:
        parent[last] = data.draw(VALUES)
    return value


def _crafted(records: list[Any], data: st.DataObject) -> bytes:
    records = list(records)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(records) - 1))
        kind = data.draw(st.sampled_from(["replace", "replace", "replace", "double", "drop"]))
        if kind == "replace":
            records[at] = _replace(records[at], data)
        elif kind == "double":
            records.insert(at, records[at])
        elif len(records) > 1:
            del records[at]
    lines = [json.dumps(record, ensure_ascii=data.draw(st.booleans())).encode() for record in records]
    if data.draw(st.booleans()):  # a line cut short, as a log being written leaves it
        at = data.draw(st.integers(0, len(lines) - 1))
        lines[at] = lines[at][: data.draw(st.integers(0, len(lines[at])))]
    return b"\n".join(lines) + b"\n" * data.draw(st.integers(0, 1))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(SEEDS)), st.data())
def test_a_crafted_session_is_read_by_every_layer(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, seed: str, data: st.DataObject
) -> None:
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    home = tmp_path_factory.mktemp("home")
    where, records = SEEDS[seed]
    log = home / where
    log.parent.mkdir(parents=True)
    log.write_bytes(_crafted(records, data))
    root = tmp_path_factory.mktemp("root")

    try:
        transcript = open_transcript(str(log))
    except TranscriptError:
        transcript = None
    if transcript is not None:
        replayer = Replayer(transcript, str(root))
        for call in list(transcript.stream())[:30]:
            replay = replayer.replay(call)
            assert replay.status
            assert len(transcript.recorded(call) or "") <= log.stat().st_size
        context = AgentContext(transcript.index)
        assert all(turn.context >= 0 for turn in context.fills(wait=True))
        context.costliest()
        transcript.build.join()
    kinds: tuple[Format, ...] = ("markdown", "html")
    for kind in kinds:
        out = tmp_path_factory.mktemp("out") / f"s.{kind}"
        try:
            export_session(str(log), str(out), kind, str(root))
        except ExportError:
            assert transcript is None, "an export fails only on what is not a transcript"

    store = IndexStore()
    (info,) = list_sessions(str(home), store, workers=0)
    assert info.path == str(log) and info.size == log.stat().st_size
    for _ in update_calls(str(home), store, workers=0):
        pass
    search(store, str(home), "a")
    store.close()


HOSTILE: list[Any] = [None, "x", {}]


def _shape(value: Any, at: tuple[Any, ...] = ()) -> frozenset[tuple[tuple[Any, ...], str]]:
    """The places of a record's parts (any list item as ``*``) with their types: records of one
    shape are read by the same code."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    here = {(at, type(value).__name__)}
    return frozenset(here.union(*(_shape(child, (*at, "*" if isinstance(key, int) else key)) for key, child in items)))


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_any_one_part_of_a_record_made_hostile_is_read_replayed_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: str
) -> None:
    """Every part of a record of each shape in the seed, in turn, replaced by each HOSTILE value (the
    search above draws its changes; this tries each place once): summed up for a listing, its calls
    read for the index, read, replayed and counted."""
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(tmp_path / "cache"))
    where, records = SEEDS[seed]
    log = tmp_path / Path(where).name
    agent = seed.split()[0]
    shapes: set[frozenset[tuple[tuple[Any, ...], str]]] = set()
    for number, record in enumerate(records):
        if _shape(record) in shapes:
            continue
        shapes.add(_shape(record))
        for *above, last in _paths(record):
            for value in HOSTILE:
                crafted = json.loads(json.dumps(record))
                parent = crafted
                for key in above:
                    parent = parent[key]
                parent[last] = value
                lines = [*records[:number], crafted, *records[number + 1 :]]
                log.write_text("".join(json.dumps(line) + "\n" for line in lines))
                with contextlib.suppress(ValueError):  # what a listing says of a log it cannot read
                    summarize(Found(str(log), agent, ""), log.stat().st_size)
                assert read_session(Task(1, str(log), agent)).session == 1
                try:
                    transcript = open_transcript(str(log))
                except TranscriptError:
                    continue
                replayer = Replayer(transcript, str(tmp_path))
                for call in transcript.stream():
                    assert replayer.replay(call).status, (number, above, last, value)
                assert all(turn.context >= 0 for turn in AgentContext(transcript.index).fills(wait=True))
