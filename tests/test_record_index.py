"""The record index: a transcript's calls, turns and conversation in columns, its records read when
shown; saved in the cache and reused, read on when the log grows, read again when it was rewritten;
hostile logs and hostile saved entries."""

from __future__ import annotations

import json
import os
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentpager.logs.records import RecordFile
from agentpager.transcripts import index as record_index
from agentpager.transcripts import open_transcript

CWD = "/p"
ITEM_SIZES = {"b": 1, "h": 2, "i": 4, "q": 8}


def line(kind: str, content: object, **extra: object) -> str:
    message = {"role": "assistant" if kind == "assistant" else "user", "content": content}
    return json.dumps({"type": kind, "cwd": CWD, "message": message} | extra) + "\n"


def call(call_id: str, tool: str, arguments: dict, usage: int | None = None) -> str:
    message: dict = {"id": f"m-{call_id}", "role": "assistant"}
    message["content"] = [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}]
    if usage is not None:
        message["usage"] = {"input_tokens": usage, "output_tokens": 1}
    return json.dumps({"type": "assistant", "cwd": CWD, "message": message}) + "\n"


def result(call_id: str, output: str) -> str:
    return line("user", [{"type": "tool_result", "tool_use_id": call_id, "content": output}])


def listed(transcript) -> list[tuple]:  # noqa: ANN001 - a Transcript
    return [(c.index, c.tool, c.turn, transcript.recorded(c)) for c in transcript.calls]


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every index is saved, whatever its log's size; the lines read into an index are noted."""
    monkeypatch.setattr(record_index, "SAVED_MIN_BYTES", 0)
    lines: list[int] = []
    original = record_index.RecordIndex.read

    def read(self, items, *others) -> None:  # noqa: ANN001, ANN002
        def noted():  # noqa: ANN202
            for item in items:
                lines.append(item.where.line)
                yield item

        original(self, noted(), *others)

    monkeypatch.setattr(record_index.RecordIndex, "read", read)
    return lines


def test_a_saved_index_is_reused_and_read_on_where_it_ended(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(line("user", "go") + call("t1", "Read", {"file_path": "/p/a"}, 100) + result("t1", "x" * 300))
    with log.open("a") as file:
        file.write(call("t2", "Bash", {"command": "ls"}, 150))  # its result is not logged yet
    first = open_transcript(str(log))
    assert listed(first) == [(0, "Read", 1, "x" * 300), (1, "Bash", 2, None)]
    assert fed == [1, 2, 3, 4]
    fed.clear()
    again = open_transcript(str(log))
    assert listed(again) == [(0, "Read", 1, "x" * 300), (1, "Bash", 2, None)] and fed == [], "nothing read again"
    with log.open("a") as file:
        file.write(result("t2", "y" * 100) + call("t3", "Read", {"file_path": "/p/b"}, 190) + result("t3", "three"))
    grown = open_transcript(str(log))
    assert fed == [5, 6, 7], "only the lines appended since"
    assert listed(grown) == [(0, "Read", 1, "x" * 300), (1, "Bash", 2, "y" * 100), (2, "Read", 3, "three")]
    # Each turn's growth shared by size between the output and the call's arguments before it:
    # 50 * 300 // (300 + 21), then 40 * 100 // (100 + 17); the last output has no turn after it.
    assert [grown.tokens(c) for c in grown.calls] == [(46, False), (34, False), None]


def test_a_saved_index_is_used_mapped_and_copied_only_to_grow(tmp_path: Path, fed: list[int]) -> None:
    """The columns of a saved index are views of its entry (the file's pages, not the process's
    memory), written only in the process's copy; an index grows in arrays again."""
    log = tmp_path / "s.jsonl"
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}, 40) + result("t1", "x" * 30) + call("t2", "Glob", {}, 90))
    built = open_transcript(str(log))
    (entry,) = (Path(os.environ["AGENTPAGER_CACHE_DIR"]) / "records").iterdir()
    saved = entry.read_bytes()
    assert isinstance(built.index.calls.tool, memoryview), "the arrays built give way to the entry saved"
    restored = open_transcript(str(log)).index
    assert isinstance(restored.calls.tool, memoryview) and isinstance(restored.turns.input, memoryview)
    restored.calls.tokens[0] = 12345
    assert entry.read_bytes() == saved and built.index.calls.tokens[0] != 12345, "never written back"
    with log.open("a") as file:
        file.write(result("t2", "y"))
    assert built.follow() == 0
    assert isinstance(built.index.calls.tool, array)
    assert listed(built) == [(0, "Read", 1, "x" * 30), (1, "Glob", 2, "y")]
    grown = open_transcript(str(log)).index  # read on from the entry, which it outgrew
    assert isinstance(grown.calls.tool, array) and grown.calls.r_offset[1] >= 0
    grown._map_saved()
    assert isinstance(grown.calls.tool, array) and grown.calls.r_offset[1] >= 0, "an entry unlike the index is not used"


def test_a_truncated_last_record_is_left_until_it_is_whole(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    whole = result("t1", "done")
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}) + whole[:25])
    transcript = open_transcript(str(log))
    assert listed(transcript) == [(0, "Read", 1, None)] and transcript.problems == []
    with log.open("a") as file:
        file.write(whole[25:] + call("t2", "Glob", {"pattern": "*"}))
    assert transcript.follow() == 1
    assert listed(transcript) == [(0, "Read", 1, "done"), (1, "Glob", 2, None)]
    assert open_transcript(str(log)).calls[0].result is not None, "a new process reads on from the saved index"


def test_a_log_rewritten_in_place_is_read_again(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}) + result("t1", "old"))
    transcript = open_transcript(str(log))
    size = log.stat().st_size
    log.write_text(call("t1", "Grep", {"pattern": "/p/a*b"}) + result("t1", "new"))  # the same size
    assert log.stat().st_size == size
    fed.clear()
    assert listed(open_transcript(str(log))) == [(0, "Grep", 1, "new")], "the saved index is not used"
    assert fed == [1, 2]
    assert transcript.recorded(transcript.calls[0]) is None, "what the old index says is no longer there"
    assert transcript.follow() == 0 and listed(transcript) == [(0, "Grep", 1, "new")]
    log.write_text(call("t9", "Bash", {"command": "x"}))  # replaced by a shorter log
    assert transcript.follow() == 0 and listed(transcript) == [(0, "Bash", 1, None)]


def test_hostile_records_are_skipped_or_read_as_far_as_they_make_sense(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    hostile = [
        {"type": "assistant", "message": {"id": 7, "usage": {"input_tokens": 10**30, "output_tokens": -5}}},
        {"type": "assistant", "message": {"usage": "lots", "content": [{"type": "tool_use", "id": {}, "name": []}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t2", "name": "Read", "input": 5}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "content": 12}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": "yes"}]}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": "big", "compact_metadata": 3},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": 10**40, "trigger": 9}},
        {"type": "user", "isSidechain": True, "message": {"content": [{"type": "text", "text": "\ud800"}]}},
        {"type": "assistant", "parent_tool_use_id": "nobody", "message": {"content": "hi"}},
        [1, 2, 3],
    ]
    log.write_bytes(
        "".join(json.dumps(record) + "\n" for record in hostile).encode("utf-8", "surrogatepass")
        + b'{"type": "user", "message": \xff\xfe}\n\x00\x00\n'
    )
    transcript = open_transcript(str(log))
    assert [(c.tool, c.arguments, transcript.recorded(c)) for c in transcript.calls] == [
        ("?", {}, ""),
        ("Read", "5", "12"),
    ]
    assert [(t.input, t.output, t.context) for t in transcript.turns] == [(0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
    assert [(b.trigger, b.tokens_before) for b in transcript.boundaries] == [("", 0), ("", 0)]
    assert [(e.kind, e.text) for e in transcript.events] == [
        ("call", ""),
        ("call", ""),
        ("text", "\ud800"),
        ("text", "hi"),
    ]
    assert transcript.problems == [
        "line 11: not JSON (Expecting value: line 1 column 29 (char 28)), skipped",
        "line 12: not JSON (Expecting value: line 1 column 1 (char 0)), skipped",
    ]


def test_a_damaged_or_crafted_saved_index_is_not_used(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}) + result("t1", "x"))
    open_transcript(str(log))
    (entry,) = (Path(os.environ["AGENTPAGER_CACHE_DIR"]) / "records").iterdir()
    saved = entry.read_bytes()
    entry.write_bytes(saved[:-1] + bytes([saved[-1] ^ 1]))  # a damaged column
    fed.clear()
    assert listed(open_transcript(str(log))) == [(0, "Read", 1, "x")] and fed == [1, 2]
    crafted = record_index._decoded(saved)
    crafted.calls.r_offset[0] = 10**9  # a result far past the log's end, with a good checksum
    stamp = record_index.Stamp(*crafted.state["stamp"])
    index = open_transcript(str(log)).index
    index.calls.r_offset[0] = 10**9
    record_index.SavedIndexes().save(index, stamp, bytes.fromhex(crafted.state["fingerprint"]))
    fed.clear()
    assert listed(open_transcript(str(log))) == [(0, "Read", 1, "x")] and fed == [1, 2], "read again"


def test_a_fifo_in_place_of_a_saved_index_is_not_waited_on(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}) + result("t1", "x"))
    open_transcript(str(log))
    (entry,) = (Path(os.environ["AGENTPAGER_CACHE_DIR"]) / "records").iterdir()
    entry.unlink()
    os.mkfifo(entry)  # opened for reading as a file, it would wait for a writer for ever
    fed.clear()
    assert listed(open_transcript(str(log))) == [(0, "Read", 1, "x")] and fed == [1, 2], "read again"


COMPACTION = json.dumps({"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": 9}}) + "\n"


def test_compactions_are_saved_as_columns_and_a_crafted_one_is_not_used(tmp_path: Path, fed: list[int]) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(call("t1", "Read", {"file_path": "/p/a"}) + result("t1", "x") + COMPACTION + call("t2", "Read", {}))
    fresh = list(open_transcript(str(log)).boundaries)
    fed.clear()
    restored = open_transcript(str(log))
    assert fed == [] and list(restored.boundaries) == fresh and restored.boundaries[-1:] == fresh[-1:]
    assert [(b.trigger, b.tokens_before, b.new_session) for b in fresh] == [("", 9, False)]
    (entry,) = (Path(os.environ["AGENTPAGER_CACHE_DIR"]) / "records").iterdir()
    state = record_index._decoded(entry.read_bytes()).state
    index = restored.index
    index.boundaries.agent[0] = len(index.strings.values)  # a name the index does not have, with a good checksum
    record_index.SavedIndexes().save(index, record_index.Stamp(*state["stamp"]), bytes.fromhex(state["fingerprint"]))
    fed.clear()
    assert list(open_transcript(str(log)).boundaries) == fresh and fed == [1, 2, 3, 4], "read again"


@given(
    st.sampled_from("bhiq").flatmap(
        lambda code: st.tuples(
            st.just(code),
            st.lists(st.integers(-(1 << (8 * ITEM_SIZES[code] - 1)), (1 << (8 * ITEM_SIZES[code] - 1)) - 1)),
            st.integers(-2, 1 << 64),
        )
    ),
    st.sampled_from([0, -1]),
)
def test_bounds_found_from_bytes_are_those_of_the_values(case: tuple[str, list[int], int], lowest: int) -> None:
    code, values, limit = case
    found = record_index._below(array(code, values), limit, lowest)
    assert found == all(lowest <= value < limit for value in values)


@given(st.integers(1, 1 << 40), st.lists(st.integers(-3, 3) | st.none(), max_size=300), st.sampled_from([0, -1]))
def test_bounds_near_the_limit(limit: int, steps: list[int | None], lowest: int) -> None:
    values = [-1 if step is None else limit - 1 + step for step in steps]
    found = record_index._below(array("q", values), limit, lowest)
    assert found == all(lowest <= value < limit for value in values)


def test_a_call_is_read_from_its_record_when_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "s.jsonl"
    output = "x" * 50_000
    log.write_text(
        "".join(call(f"t{n}", "Read", {"file_path": f"/p/{n}"}) + result(f"t{n}", output) for n in range(200))
    )
    transcript = open_transcript(str(log))
    columns = [transcript.index.calls, transcript.index.events, transcript.index.turns, transcript.index.answers]
    kept = sum(len(column) * column.itemsize for table in columns for column in table.columns.values())
    assert kept < 80_000 < log.stat().st_size // 100, "about 300 bytes a call (its turn and event too), no output"
    read: list[int] = []
    original = RecordFile.read_again

    def read_again(self, where, generation=None):  # noqa: ANN001, ANN202
        read.append(where.line)
        return original(self, where, generation)

    monkeypatch.setattr(RecordFile, "read_again", read_again)
    assert transcript.calls[150].arguments == {"file_path": "/p/150"} and read == [301]
    assert transcript.recorded(transcript.calls[150]) == output and read == [301, 302]


def test_the_index_built_in_the_background_gives_the_same_calls(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text(
        "".join(
            call(f"t{n}", "Read", {"file_path": f"/p/{n}"}, 1000 + n) + result(f"t{n}", "y" * n) for n in range(3000)
        )
    )
    streamed = open_transcript(str(log), wait=False)
    assert [(c.index, c.turn, c.arguments["file_path"]) for c in streamed.stream()] == [
        (n, n + 1, f"/p/{n}") for n in range(3000)
    ]
    streamed.build.join()
    whole = open_transcript(str(log))
    assert streamed.complete and len(streamed.turns) == len(whole.turns) == 3000
    assert [streamed.tokens(c) for c in streamed.calls] == [whole.tokens(c) for c in whole.calls]


RECORDS = st.one_of(
    st.builds(
        lambda n, usage: call(f"t{n}", "Read", {"file_path": f"/p/{n}"}, usage), st.integers(0, 5), st.integers(1, 9999)
    ),
    st.builds(lambda n: call(f"t{n}", "Task", {"prompt": "p"}), st.integers(0, 5)),
    st.builds(lambda n, size: result(f"t{n}", "o" * size), st.integers(0, 5), st.integers(0, 300)),
    st.builds(lambda text: line("user", text), st.text("ab ", min_size=1, max_size=5)),
    st.builds(
        lambda n: (
            json.dumps(
                {
                    "type": "assistant",
                    "parent_tool_use_id": f"t{n}",
                    "message": {
                        "id": "s",
                        "usage": {"input_tokens": 50},
                        "content": [{"type": "tool_use", "id": f"u{n}", "name": "Glob", "input": {}}],
                    },
                }
            )
            + "\n"
        ),
        st.integers(0, 5),
    ),
    st.just(json.dumps({"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": 9}}) + "\n"),
    st.just(json.dumps({"type": "result"}) + "\n"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(RECORDS, min_size=1, max_size=40), st.data())
def test_an_index_read_on_from_where_it_was_saved_is_the_index_read_whole(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, lines: list[str], data: st.DataObject
) -> None:
    """Whatever the log and wherever it was when the index was saved, reading on from there gives
    what reading the whole log gives: the collector's state was kept whole."""
    monkeypatch.setattr(record_index, "SAVED_MIN_BYTES", 0)
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    lines = [line("user", "go"), *lines]  # a first record that shows the format
    cut = data.draw(st.integers(1, len(lines)))
    log = tmp_path_factory.mktemp("log") / "s.jsonl"
    log.write_text("".join(lines[:cut]))
    open_transcript(str(log))  # saved
    with log.open("a") as file:
        file.write("".join(lines[cut:]))
    resumed = open_transcript(str(log))
    monkeypatch.setattr(record_index, "SAVED_MIN_BYTES", 1 << 40)
    whole = open_transcript(str(log))

    def seen(transcript) -> tuple:  # noqa: ANN001
        calls = [
            (c.tool, c.turn, c.prompt, c.depth, c.parent, c.agent, transcript.recorded(c)) for c in transcript.calls
        ]
        turns = [(t.context, t.results_before, t.events_before, t.agent) for t in transcript.turns]
        tokens = [transcript.tokens(c) for c in transcript.calls]
        return calls, turns, tokens, [e.kind for e in transcript.events], len(transcript.boundaries)

    assert seen(resumed) == seen(whole)
