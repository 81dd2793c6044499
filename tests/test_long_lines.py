"""Long JSON lines (tool outputs) are read at their ends when the call list needs no more of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentpager.logs import records
from agentpager.logs.records import RecordFile
from agentpager.transcripts import open_transcript

BIG = "".join(f'{n:>6}\t    const value{n} = compute("item", {n});\n' for n in range(1, 2001))
"""An output of 101,786 characters: its line is far past LONG_LINE."""


def claude_lines(outputs: list[str], order: str = "new") -> list[dict]:
    """Claude Code lines with one Read per output. ``new`` is the key order of 2.1.2xx (cwd, version
    and session after the message); ``old`` the order of 1.x and 2.0 (before it)."""
    lines: list[dict] = [
        {
            "type": "user",
            "cwd": "/p",
            "sessionId": "s",
            "version": "2.1.290",
            "message": {"role": "user", "content": "go"},
        }
    ]
    for n, output in enumerate(outputs):
        lines.append(
            {
                "parentUuid": f"u{n}",
                "isSidechain": False,
                "type": "assistant",
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file_path": f"/p/f{n}"}}
                    ],
                },
                "timestamp": f"2026-05-01T10:00:{n:02d}.000Z",
                "cwd": "/p",
                "version": "2.1.290",
            }
        )
        context = {"cwd": "/p", "sessionId": "s", "version": "2.1.294", "gitBranch": "main"}
        result = {
            "parentUuid": f"a{n}",
            "isSidechain": False,
            **(context if order == "old" else {}),
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"tool_use_id": f"t{n}", "type": "tool_result", "content": output, "is_error": n == 1}],
            },
            "uuid": f"r{n}",
            "timestamp": f"2026-05-01T10:01:{n:02d}.000Z",
            "toolUseResult": {"type": "text", "file": {"filePath": f"/p/f{n}", "content": output}},
            "sourceToolAssistantUUID": f"a{n}",
            **(context if order == "new" else {}),
        }
        lines.append(result)
    return lines


def write(path: Path, lines: list[dict], end: str = "\n") -> Path:
    path.write_text("\n".join(json.dumps(line, separators=(",", ":")) for line in lines) + end)
    return path


def described(path: Path) -> list[tuple]:
    transcript = open_transcript(str(path))
    return [
        (c.index, c.tool, c.call_id, c.arguments, c.version, c.result and (c.result.where.line, c.result.block))
        for c in transcript.calls
    ]


@pytest.mark.parametrize("order", ["new", "old"])
def test_long_outputs_are_placed_without_being_read(tmp_path: Path, order: str) -> None:
    path = write(tmp_path / "s.jsonl", claude_lines([BIG, BIG + "x", "short"], order))
    transcript = open_transcript(str(path))
    results = [call.result for call in transcript.calls]
    assert [(r.where.line, r.block, r.chars, r.is_error) for r in results if r] == [
        (3, 0, None, None),
        (5, 0, None, None),
        (7, 0, 5, False),
    ]
    sizes = [len(line.encode()) for line in path.read_text().split("\n")]
    assert [r.where.size for r in results if r] == [sizes[2], sizes[4], sizes[6]]
    assert (transcript.parsed.version, transcript.parsed.session_id) == ("2.1.294", "s"), "from the lines' tails"
    assert transcript.recorded(transcript.calls[1]) == BIG + "x"
    assert (transcript.calls[1].result.chars, transcript.calls[1].result.is_error) == (len(BIG) + 1, True)


def test_skimming_lists_what_reading_whole_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = claude_lines([BIG, "a", BIG, BIG])
    lines.insert(3, {"type": "user", "cwd": "/p", "message": {"role": "user", "content": "a long prompt " + BIG}})
    path = write(tmp_path / "s.jsonl", lines)
    skimmed = described(path)
    monkeypatch.setattr(records, "LONG_LINE", 10**9)
    assert described(path) == skimmed
    assert [event.kind for event in open_transcript(str(path)).events][:4] == ["prompt", "call", "prompt", "call"]


def test_a_long_line_with_several_results_is_read_whole(tmp_path: Path) -> None:
    """Claude Code writes one result per line (with its one ``toolUseResult``); a line whose tail
    names another ``tool_use_id`` holds more, and is read whole."""
    lines = claude_lines([BIG, "b"])  # made into two parallel calls answered on one line
    lines[1]["message"]["content"].append(lines.pop(3)["message"]["content"][0])
    lines[2]["message"]["content"].append(lines.pop(3)["message"]["content"][0])
    del lines[2]["toolUseResult"]
    path = write(tmp_path / "s.jsonl", lines)
    transcript = open_transcript(str(path))
    assert [(c.call_id, c.result.where.line, c.result.block, c.result.chars) for c in transcript.calls] == [
        ("t0", 3, 0, len(BIG)),
        ("t1", 3, 1, 1),
    ]


def test_long_calls_and_prompts_are_read_whole(tmp_path: Path) -> None:
    lines = claude_lines(["ok"])
    lines[1]["message"]["content"][0] = {"type": "tool_use", "id": "t0", "name": "Write", "input": {"content": BIG}}
    path = write(tmp_path / "s.jsonl", lines)
    (call,) = open_transcript(str(path)).calls
    assert call.arguments == {"content": BIG}


def test_a_long_last_line_still_being_written_waits(tmp_path: Path) -> None:
    lines = claude_lines([BIG])
    whole = write(tmp_path / "s.jsonl", lines)
    text = whole.read_text()
    whole.write_text(text[: len(text) - 200])
    transcript = open_transcript(str(whole))
    assert transcript.calls[0].result is None and transcript.problems == []
    with whole.open("a") as file:
        file.write(text[len(text) - 200 :])
    assert transcript.follow() == 0
    assert transcript.calls[0].result is not None and transcript.recorded(transcript.calls[0]) == BIG


def test_codex_outputs(tmp_path: Path) -> None:
    lines = [
        {"timestamp": "t0", "type": "session_meta", "payload": {"id": "c", "cwd": "/p", "cli_version": "0.60.1"}},
        {
            "timestamp": "t1",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell_command", "call_id": "c1", "arguments": "{}"},
        },
        {
            "timestamp": "t2",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": BIG},
        },
    ]
    path = write(tmp_path / "rollout.jsonl", lines)
    (call,) = open_transcript(str(path)).calls
    assert (call.result.where.line, call.result.chars) == (3, None)
    assert RecordFile(str(path)).read_again(call.result.where)["payload"]["output"] == BIG


def test_the_call_list_shows_a_skimmed_output_by_its_line_until_it_is_read(tmp_path: Path) -> None:
    from agentpager.tui.screens.transcript import _recorded_size

    transcript = open_transcript(str(write(tmp_path / "s.jsonl", claude_lines([BIG]))))
    (call,) = transcript.calls
    assert (_recorded_size(call), _recorded_size(call, short=True)) == ("≤220 KB", "≤220 KB"), (
        "the line holds the output twice"
    )
    transcript.recorded(call)
    assert (_recorded_size(call), _recorded_size(call, short=True)) == ("101,786 chars", "101,786")
