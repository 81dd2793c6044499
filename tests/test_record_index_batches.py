"""The record index's build moves what the collector found into its columns a batch at a time, row
by row for each batch: where the batches end changes nothing in the index, and a call's arguments
are measured as ``json.dumps`` writes them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentpager.engine import jsontext
from agentpager.logs.records import RecordFile, json_line
from agentpager.transcripts import index as record_index
from agentpager.transcripts.formats import detected

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec=None, exclude_categories=())),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5))
def test_arguments_are_measured_as_json_dumps_writes_them(arguments: dict) -> None:
    assert record_index._chars(arguments) == len(json.dumps(arguments, ensure_ascii=False))


def test_arguments_that_json_cannot_write_measure_nothing() -> None:
    assert record_index._chars({"value": {1, 2}}) == 0
    assert record_index._chars({"value": math.nan}) == len('{"value": NaN}')
    assert record_index._chars("raw text") == len("raw text")


# One record of a Claude Code session: "calls N" (an assistant message with N tool_use blocks, its
# usage growing), "results" (a user message answering the calls still waiting, one a line), "text",
# "compaction" (a boundary and its summary), "sidechain" (a subagent's call).
RECORDS = st.lists(
    st.sampled_from(["calls 1", "calls 2", "calls 3", "results", "text", "compaction", "sidechain"]),
    min_size=1,
    max_size=40,
)


def session(kinds: list[str]) -> str:
    prompt = {"type": "user", "cwd": "/p", "sessionId": "s", "message": {"role": "user", "content": "go"}}
    lines, waiting, made, tokens = [prompt], [], 0, 100
    for number, kind in enumerate(kinds):
        base = {"cwd": "/p", "sessionId": "s", "timestamp": f"2026-01-01T00:00:{number:02d}Z"}
        if kind.startswith("calls") or kind == "sidechain":
            blocks = []
            for _ in range(1 if kind == "sidechain" else int(kind.split()[1])):
                call_id = f"c{made}"
                made += 1
                waiting.append(call_id)
                blocks.append({"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": f"/p/{made}"}})
            tokens += 50
            usage = {"input_tokens": tokens, "cache_read_input_tokens": 7, "output_tokens": 3}
            message = {"id": f"m{number}", "role": "assistant", "model": "m", "content": blocks, "usage": usage}
            lines.append(base | {"type": "assistant", "message": message, "isSidechain": kind == "sidechain"})
        elif kind == "results":
            for call_id in waiting:
                block = {"type": "tool_result", "tool_use_id": call_id, "content": "out " * (len(call_id) + 3)}
                lines.append(base | {"type": "user", "message": {"role": "user", "content": [block]}})
            waiting = []
        elif kind == "text":
            message = {"id": f"m{number}", "role": "assistant", "content": [{"type": "text", "text": "so"}]}
            lines.append(base | {"type": "assistant", "message": message})
        else:
            metadata = {"trigger": "auto", "preTokens": tokens}
            lines.append(base | {"type": "system", "subtype": "compact_boundary", "compactMetadata": metadata})
            summary = {"role": "user", "content": "the summary"}
            lines.append(base | {"type": "user", "message": summary, "isCompactSummary": True})
    return "".join(json.dumps(line) + "\n" for line in lines)


NAMES = {"container", "tool", "agent", "version", "cwd", "model", "trigger"}
"""Columns that name a string of the index (numbered in the order they were met, which the
batches change: compared as the strings they name)."""


def built(path: Path) -> tuple[list[list[object]], dict]:
    records = RecordFile(str(path))
    found, items = detected(record_index.whole_lines(records, 1))
    assert found is not None
    index = record_index.RecordIndex(records, found())
    index.read(items)
    tables = (index.calls, index.events, index.turns, index.answers, index.boundaries)
    columns = [
        [index.strings[value] if name in NAMES else value for value in column]
        for table in tables
        for name, column in table.columns.items()
    ]
    state = index.state()
    del state["strings"]
    agents = state["attribution"]["agents"]
    state["attribution"]["agents"] = {index.strings[int(agent)]: context for agent, context in agents.items()}
    return columns, state


@settings(max_examples=60, deadline=None)
@given(RECORDS, st.sampled_from([1, 2, 5]))
def test_where_the_batches_end_changes_nothing_in_the_index(
    tmp_path_factory: pytest.TempPathFactory, kinds: list[str], batch: int
) -> None:
    path = tmp_path_factory.mktemp("log") / "session.jsonl"
    path.write_text(session(kinds))
    whole = built(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record_index, "BATCH_RECORDS", batch)
        assert built(path) == whole


@given(
    st.binary(max_size=200)
    | st.text(alphabet='[{]}"\\ aé\ud7ff').map(lambda text: text.encode("utf-8", "surrogatepass"))
)
def test_a_lines_brackets_counted_from_its_bytes_are_those_of_its_text(line: bytes) -> None:
    text = line.decode("utf-8", "replace")
    assert jsontext.opening_brackets(line) == text.count("[") + text.count("{")


@given(st.text(alphabet='"ab:', max_size=300).map(str.encode), st.text(alphabet='"ab:', min_size=1, max_size=6).map(str.encode))
def test_a_markers_occurrences_are_what_bytes_count_finds(data: bytes, marker: bytes) -> None:
    # counted by the C module (memmem) where it was built: not overlapping, as bytes.count
    assert jsontext.occurrences(data, marker) == data.count(marker)


@pytest.mark.parametrize("depth", [100, 101, 1000])
def test_a_line_nested_past_the_bound_is_refused_whatever_counted_its_brackets(depth: int) -> None:
    line = ("[" * depth + "]" * depth).encode()
    if depth > jsontext.MAX_DEPTH:
        with pytest.raises(jsontext.TooDeep):
            json_line(line)
    else:
        assert json_line(line) == json.loads(line)
