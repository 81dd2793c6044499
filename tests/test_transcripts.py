"""Transcripts: the four formats, hand-written, and their replay against the files now."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG

from agentpager import Workspace
from agentpager.agents.claude_code.profiles import settings_shown_by
from agentpager.engine.patterns import compile_regex
from agentpager.transcripts import ToolCall, TranscriptError, listed_arguments, open_transcript
from agentpager.transcripts.formats import format_names
from agentpager.transcripts.replay import Replayer

CWD = "/home/dev/proj"
MALWARE = (
    "Whenever you read a file, you should consider whether it looks malicious. If it does, you MUST refuse to "
    "improve or augment the code. You can still analyze existing code, write reports, or answer high-level "
    "questions about the code behavior."
)


def jsonl(path: Path, lines: list[object | str]) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def assistant(message_id: str, *blocks: dict) -> dict:
    return {
        "type": "assistant",
        "cwd": CWD,
        "message": {"id": message_id, "role": "assistant", "content": list(blocks)},
    }


def user(*blocks: dict | str) -> dict:
    content = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], str) else list(blocks)
    return {"type": "user", "cwd": CWD, "message": {"role": "user", "content": content}}


def tool_use(call_id: str, name: str, arguments: dict) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_result(call_id: str, content: object, is_error: bool = False) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


@pytest.fixture
def files(root: Path) -> Path:
    (root / "a.py").write_text("import os\n")
    (root / "empty.txt").write_bytes(b"")
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 301)))
    return root


@pytest.fixture
def claude_session(tmp_path: Path) -> Path:
    return jsonl(
        tmp_path / "session.jsonl",
        [
            {"type": "system", "subtype": "init", "cwd": CWD, "session_id": "abc"},
            user("read a.py please"),
            assistant("m1", {"type": "text", "text": "Reading."}),
            assistant("m1", tool_use("toolu_1", "Read", {"file_path": f"{CWD}/a.py"})),
            user(tool_result("toolu_1", "1\timport os\n2\t")),
            assistant("m2", tool_use("toolu_2", "Read", {"file_path": f"{CWD}/empty.txt"})),
            user(
                tool_result(
                    "toolu_2",
                    [
                        {
                            "type": "text",
                            "text": "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
                        }
                    ],
                )
            ),
            "{this line is not json",
            assistant("m3", tool_use("toolu_3", "Bash", {"command": "ls"})),
            user(tool_result("toolu_3", "a.py\nempty.txt")),
            user("now the old way"),
            assistant("m4", tool_use("toolu_4", "Read", {"file_path": f"{CWD}/a.py", "offset": 1, "limit": 1})),
            user(tool_result("toolu_4", f"     1→import os\n\n<system-reminder>\n{MALWARE}\n</system-reminder>\n")),
        ],
    )


def test_search_finds_calls_by_arguments_output_and_the_conversation_before_them(claude_session: Path) -> None:
    transcript = open_transcript(str(claude_session))

    def found(pattern: str) -> list[int]:
        with compile_regex(pattern) as matcher:
            return sorted(transcript.calls.place_of(*key) for key in transcript.search(matcher))

    assert found("empty.txt") == [1, 2]  # its arguments; the ls output
    assert found("import os") == [0, 3]  # outputs
    assert found("old way") == [3]  # the prompt before the call
    with (
        pytest.raises(TranscriptError, match="^look-behind requires fixed-width pattern$"),
        compile_regex("a(?<=b+)") as m,
    ):
        transcript.search(m)


def test_claude_code_session(claude_session: Path, files: Path) -> None:
    transcript = open_transcript(str(claude_session))
    assert (transcript.format, transcript.cwd) == ("claude-code", CWD)
    assert [(c.index, c.prompt, c.turn, c.tool) for c in transcript.calls] == [
        (0, 1, 1, "Read"),
        (1, 1, 2, "Read"),
        (2, 1, 3, "Bash"),
        (3, 2, 4, "Read"),
    ]
    assert transcript.problems == [
        "line 8: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1)), skipped"
    ]
    replayer = Replayer(transcript, str(files))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [r.status for r in replays] == ["same", "same", "differs", "same"]
    assert replays[0].plan.arguments == {"file_path": "a.py"}
    assert replays[1].result.text.startswith("<system-reminder>Warning: the file exists but the contents are empty")
    assert (replays[2].recorded, replays[2].result.text) == ("a.py\nempty.txt", "a.py\nbig.txt\nempty.txt")
    assert replays[3].plan.settings == {"line_format": "arrow", "reminder": MALWARE}


def test_replay_shows_what_changed(claude_session: Path, files: Path) -> None:
    (files / "a.py").write_text("import sys\n")
    transcript = open_transcript(str(claude_session))
    replay = Replayer(transcript, str(files)).replay(transcript.calls[0])
    assert (replay.status, replay.matches, replay.result.text) == ("differs", False, "1\timport sys\n2\t")


def test_redacted_ids_are_paired_in_order(tmp_path: Path, files: Path) -> None:
    path = jsonl(
        tmp_path / "redacted.jsonl",
        [
            assistant(
                "m",
                tool_use("REDACTED", "Read", {"file_path": f"{CWD}/a.py"}),
                tool_use("REDACTED", "Read", {"file_path": f"{CWD}/empty.txt"}),
            ),
            user(tool_result("REDACTED", "1\timport os\n2\t"), tool_result("REDACTED", "second")),
        ],
    )
    transcript = open_transcript(str(path))
    assert [transcript.recorded(call) for call in transcript.calls] == ["1\timport os\n2\t", "second"]


def test_codex_rollout(tmp_path: Path, files: Path) -> None:
    def item(payload: dict) -> dict:
        return {"timestamp": "2026-11-01T10:00:00Z", "type": "response_item", "payload": payload}

    path = jsonl(
        tmp_path / "rollout-2026-11-01.jsonl",
        [
            {"timestamp": "2026-11-01T10:00:00Z", "type": "session_meta", "payload": {"id": "s", "cwd": CWD}},
            item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look"}]}),
            item(
                {
                    "type": "function_call",
                    "name": "read_file",
                    "call_id": "c1",
                    "arguments": json.dumps({"file_path": f"{CWD}/big.txt", "offset": 299, "limit": 5}),
                }
            ),
            item({"type": "function_call_output", "call_id": "c1", "output": "L299: line 299\nL300: line 300"}),
            item({"type": "function_call", "name": "shell", "call_id": "c2", "arguments": '{"command": ["ls"]}'}),
            item(
                {
                    "type": "function_call_output",
                    "call_id": "c2",
                    "output": json.dumps({"output": "a.py\n", "metadata": {"exit_code": 0}}),
                }
            ),
            item({"type": "function_call", "name": "read_file", "call_id": "c3", "arguments": "{not json"}),
        ],
    )
    transcript = open_transcript(str(path))
    assert (transcript.format, transcript.cwd) == ("codex", CWD)
    replayer = Replayer(transcript, str(files))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [r.status for r in replays] == ["same", "differs", "not replayable"]
    assert replays[1].recorded == json.dumps({"output": "a.py\n", "metadata": {"exit_code": 0}})
    assert replays[1].result.text == (
        '{"output":"a.py\\nbig.txt\\nempty.txt\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}'
    )
    assert transcript.calls[2].arguments == "{not json" and replays[2].recorded is None


def qq_outputs(files: Path, *starts: int) -> list[str]:
    workspace = Workspace(files)
    return [workspace.call("read_file", {"path": "big.txt", "start_line": start}).text for start in starts]


def test_openai_messages_with_a_qq_read_file_series(tmp_path: Path, files: Path) -> None:
    first, second = qq_outputs(files, 1, 201)
    messages = [{"role": "system", "content": "You read files."}, {"role": "user", "content": "Read big.txt"}]
    for number, (start, output) in enumerate(((1, first), (201, second)), 1):
        arguments = json.dumps({"path": "big.txt", "start_line": start})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{number}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": arguments},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": output})
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages, indent=1))
    transcript = open_transcript(str(path))
    assert transcript.format == "openai" and len(transcript.calls) == 2
    (files / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 301)) + "line 301\n")
    replays = [Replayer(transcript, str(files)).replay(call) for call in transcript.calls]
    assert [r.status for r in replays] == ["differs", "differs"], "the total line count changed"
    assert [r.plan.profile for r in replays] == ["qq", "qq"]
    assert replays[1].result.text.startswith("[File: big.txt | Lines 201-301 of 301]\n")
    assert replays[1].result.text.endswith("\nline 301\n" + "-" * 40 + "\n[File read completed. Total lines: 301]")


def test_openai_messages_as_jsonl(tmp_path: Path, files: Path) -> None:
    (output,) = qq_outputs(files, 250)
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "big.txt", "start_line": 250}'},
    }
    path = jsonl(
        tmp_path / "chat.jsonl",
        [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c", "content": output}],
    )
    transcript = open_transcript(str(path))
    assert Replayer(transcript, str(files)).replay(transcript.calls[0]).status == "same"


def test_an_agents_transcript_is_replayed_by_its_own_profiles_alone(tmp_path: Path, files: Path) -> None:
    """The same qq read_file call: from a message log qq replays it; from a Claude Code session it is
    not one of Claude Code's tools, whatever other profile could take it."""
    (output,) = qq_outputs(files, 250)
    arguments = {"path": "big.txt", "start_line": 250}
    session = jsonl(
        tmp_path / "s.jsonl",
        [
            user("Read big.txt"),
            assistant("m1", tool_use("t1", "read_file", arguments)),
            user(tool_result("t1", output)),
        ],
    )
    claude_code = open_transcript(str(session))
    assert claude_code.format == "claude-code"
    replay = Replayer(claude_code, str(files)).replay(claude_code.calls[0])
    assert (replay.plan, replay.status, replay.reason) == (None, "not replayable", "not one of the file tools")
    call = {"id": "c", "type": "function", "function": {"name": "read_file", "arguments": json.dumps(arguments)}}
    log = jsonl(
        tmp_path / "chat.jsonl",
        [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c", "content": output}],
    )
    openai = open_transcript(str(log))
    replay = Replayer(openai, str(files)).replay(openai.calls[0])
    assert (replay.plan.profile if replay.plan else None, replay.status) == ("qq", "same")


def test_anthropic_messages(tmp_path: Path, files: Path) -> None:
    forge = Workspace(files, "forge").call("fs_read", {"path": "a.py"}).text
    vault = Workspace(files, "vault").call("read_file", {"path": "a.py"}).text
    messages = [
        {"role": "user", "content": "look at a.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                tool_use("t1", "fs_read", {"path": "a.py"}),
                tool_use("t2", "read_file", {"path": f"{CWD}/a.py"}),
            ],
        },
        {"role": "user", "content": [tool_result("t1", [{"type": "text", "text": forge}]), tool_result("t2", vault)]},
    ]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    transcript = open_transcript(str(path))
    transcript.cwd = CWD  # message arrays carry no cwd: the caller says where the agent worked
    replays = [Replayer(transcript, str(files)).replay(call) for call in transcript.calls]
    assert transcript.format == "anthropic"
    assert [(r.plan.profile, r.status) for r in replays] == [("forge", "same"), ("vault", "same")]


def test_not_a_transcript(tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text('{"hello": "world"}\n')
    with pytest.raises(
        TranscriptError,
        match=f"not a {format_names()} transcript",
    ):
        open_transcript(str(tmp_path / "data.json"))


def test_a_broken_array_keeps_what_was_read(tmp_path: Path) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    (tmp_path / "cut.json").write_text(json.dumps([{"role": "assistant", "tool_calls": [call]}])[:-1] + ', {"role": ')
    transcript = open_transcript(str(tmp_path / "cut.json"))
    assert len(transcript.calls) == 1
    assert transcript.problems and transcript.problems[0].startswith("character ")


def test_claude_code_settings_from_the_recorded_text() -> None:
    assert settings_shown_by("1\tx") == {"line_format": "tab", "reminder": None}
    assert settings_shown_by("     1→x") == {"line_format": "arrow", "reminder": None}
    assert settings_shown_by(f"1\tx\n\n<system-reminder>\n{MALWARE}\n</system-reminder>\n") == {
        "line_format": "tab",
        "reminder": MALWARE,
    }
    countdown = "\n\n<system-reminder>\n<total_tokens>14998765 tokens left</total_tokens>\n</system-reminder>"
    assert settings_shown_by("1\tx\n2" + countdown) == {"line_format": "tab", "tokens_left": 14998765, "reminder": None}
    changed = f"2→y\n\n<system-reminder>\n{MALWARE}\n</system-reminder>\n\n<system-reminder>\nNote: a was modified"
    assert settings_shown_by(changed + "</system-reminder>") == {"line_format": "arrow", "reminder": MALWARE}
    assert settings_shown_by("File does not exist.") == {}


def test_replay_reads_as_the_version_the_transcript_names(tmp_path: Path, files: Path) -> None:
    """Claude Code writes its version on every line: 2.0.21's Read of a part of a file comes back with
    the leading spaces trimmed and the file reported as changed (the mtime has sub-millisecond digits)."""
    recorded = (
        f"1→import os\n\n<system-reminder>\n{MALWARE}\n</system-reminder>\n\n<system-reminder>\nNote: {files}/a.py "
        "was modified, either by the user or by a linter. This change was intentional, so make sure to take it into "
        "account as you proceed (ie. don't revert it unless the user asks you to). Don't tell the user this, since "
        "they are already aware. Here are the relevant changes (shown with line numbers):\n     1→import os\n"
        "</system-reminder>"
    )
    old = {"version": "2.0.21", "cwd": str(files)}
    path = jsonl(
        tmp_path / "old.jsonl",
        [
            assistant("m1", tool_use("toolu_1", "Read", {"file_path": f"{files}/a.py", "offset": 1, "limit": 1})) | old,
            user(tool_result("toolu_1", recorded)) | old,
        ],
    )
    import os

    os.utime(files / "a.py", ns=(1_700_000_000_123_456_789, 1_700_000_000_123_456_789))
    transcript = open_transcript(str(path))
    assert transcript.calls[0].version == "2.0.21"
    replay = Replayer(transcript, str(files)).replay(transcript.calls[0])
    assert replay.plan.profile == "claude-code@2.0"
    assert replay.status == "same", replay.result.text
    os.utime(files / "a.py", ns=(1_700_000_000_123_000_000, 1_700_000_000_123_000_000))
    on_a_millisecond = Replayer(transcript, str(files)).replay(transcript.calls[0])
    assert on_a_millisecond.result.text == f"     1→import os\n\n<system-reminder>\n{MALWARE}\n</system-reminder>\n"


def test_replay_command(claude_session: Path, files: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(claude_session), "--root", str(files), "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 0
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [sorted(r) for r in records][0] == [
        "agent",
        "arguments",
        "index",
        "matches",
        "parent",
        "reason",
        "received",
        "recorded",
        "replayed",
        "status",
        "tool",
        "turn",
    ]
    assert [(r["index"], r["turn"], r["tool"], r["matches"], r["reason"]) for r in records] == [
        (0, 1, "Read", True, None),
        (1, 2, "Read", True, None),
        (2, 3, "Bash", False, None),
        (3, 4, "Read", True, None),
    ]
    assert records[2]["replayed"] == "a.py\nbig.txt\nempty.txt" and records[0]["replayed"] == "1\timport os\n2\t"
    assert "line 8: not JSON" in done.stderr
    assert done.stderr.endswith("agentpager: 3 same, 1 differs, 0 uncertain, 0 unchanged, 0 not replayable\n")
    text = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(claude_session), "--root", str(files)],
        capture_output=True,
        text=True,
        timeout=HANG,
    ).stdout.splitlines()
    assert len(text) == 4 and text[0].split() == [
        "0",
        "turn",
        "1",
        "Read",
        '{"file_path":',
        '"/home/dev/proj/a.py"}',
        "[14",
        "chars]",
        "same",
    ]
    assert text[2].endswith("differs")


def test_replay_command_on_a_file_that_is_not_a_transcript(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello\n")
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(tmp_path / "x.txt")],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 2 and "not a Claude Code" in done.stderr and done.stdout == ""


def test_records_of_an_unexpected_shape_are_reported_and_skipped(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "odd.jsonl",
        [
            {"role": "assistant", "tool_calls": ["not an object"]},
            {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "read_file", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "out"},
        ],
    )
    transcript = open_transcript(str(path))
    assert [call.tool for call in transcript.calls] == ["read_file"]
    assert transcript.problems[0].startswith("line 1: unexpected shape")


def test_a_difference_only_the_model_server_can_decide_is_uncertain(tmp_path: Path) -> None:
    from agentpager.logs.records import Location
    from agentpager.transcripts.formats import ToolCall
    from agentpager.transcripts.replay import Plan, Replay
    from agentpager.workspace import ToolResult

    call = ToolCall(0, 1, "t0", "Read", {"file_path": "a"}, Location(line=1))
    plan = Plan("claude-code", "Read", {"file_path": "a"})
    near = ToolResult("1\tmany words", False, uncertain="about 24,500 tokens (cl100k)")
    assert Replay(call, "File content (25013 tokens) exceeds ...", plan, near).status == "uncertain"
    assert Replay(call, "1\tmany words", plan, near).status == "same"
    assert Replay(call, "other", plan, ToolResult("1\tmany words", False)).status == "differs"


def test_the_root_never_comes_from_the_transcript(tmp_path: Path) -> None:
    """Issue 12, item 3: a log saying cwd "/" must not turn a replay into a read of /etc/passwd."""
    log = jsonl(
        tmp_path / "hostile.jsonl",
        [
            {
                "type": "assistant",
                "cwd": "/",
                "message": {"role": "assistant", "content": [tool_use("t", "Read", {"file_path": "/etc/passwd"})]},
            },
            {"type": "user", "cwd": "/", "message": {"role": "user", "content": [tool_result("t", "1\\troot:x:0:0")]}},
        ],
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(log), "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
        cwd=elsewhere,
    )
    (record,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert record["replayed"] == f"File does not exist. Note: your current working directory is {elsewhere}."
    assert "replayed against ." in done.stderr
    transcript = open_transcript(str(log))
    assert Replayer(transcript).root == "."


def test_the_format_is_decided_by_the_first_record_that_shows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 12, item 9: one record then N junk lines took 87 s for 80k lines (every record re-counted
    what was seen). Feeding starts at the first record that shows the format, not after all the junk."""
    from agentpager.agents.claude_code.transcript import ClaudeCode
    from agentpager.logs.records import BadRecord, Location, Record
    from agentpager.transcripts import formats

    pulled = 0
    fed_after: list[int] = []

    def records():
        nonlocal pulled
        pulled += 1
        yield Record(user("hello"), Location(line=1))
        for number in range(2, 10_002):
            pulled += 1
            yield BadRecord(Location(line=number), "not JSON")

    original = ClaudeCode.feed

    def feed(self, record) -> None:  # noqa: ANN001
        fed_after.append(pulled)
        original(self, record)

    monkeypatch.setattr(ClaudeCode, "feed", feed)
    parsed = formats.parse(records())
    assert fed_after == [1]
    assert len(parsed.problems) == 10_000 and parsed.problems[-1] == "line 10001: not JSON, skipped"


def test_one_record_then_many_junk_lines(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text(json.dumps(user("hello")) + "\n" + "junk\n" * 80_000)
    transcript = open_transcript(str(path))
    assert transcript.format == "claude-code" and transcript.problem_count == 80_000
    assert len(transcript.problems) == 1000, "the first thousand are kept word for word, the rest counted"
    assert transcript.problems[-1] == "line 1001: not JSON (Expecting value: line 1 column 1 (char 0)), skipped"


def test_a_list_row_shows_paths_relative_to_where_the_agent_worked() -> None:
    def call(arguments: dict | str, cwd: str | None = "/home/dev/proj") -> ToolCall:
        return ToolCall(index=0, prompt=1, call_id="t0", tool="Read", arguments=arguments, where=(0, 0), cwd=cwd)

    read = {"file_path": "/home/dev/proj/src/app.py", "offset": 40, "limit": 20}
    assert listed_arguments(call(read), 200) == 'file_path="src/app.py" offset=40 limit=20'
    assert listed_arguments(call(read), 24) == 'file_path="src/app.py" …'
    assert listed_arguments(call(read, cwd=None), 200) == 'file_path="/home/dev/proj/src/app.py" offset=40 limit=20'
    outside = {"file_path": "/home/dev/project2/a.py", "path": "/home/dev/proj", "note": "a  b\nc"}
    assert (
        listed_arguments(call(outside), 200)
        == 'file_path="/home/dev/project2/a.py" path="/home/dev/proj" note="a b\\nc"'
    )
    assert listed_arguments(call("not json {"), 200) == "not json {"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_records_nested_too_deep_are_skipped_with_their_reason(tmp_path: Path, files: Path) -> None:
    """A line 1,000 deep made the C decoder raise RecursionError (replay ended with a traceback); one
    100,000 deep, long enough to be skimmed, made the skimmer's parser do it. Each is skipped, named,
    and the calls around them are kept."""
    deep_result = '{"type":"user","cwd":"/home/dev/proj","message":{"content":' + nested(1000) + "}}"
    long_deep = '{"type":"user","message":{"content":"' + "x" * 40_000 + '","more":' + nested(100_000) + "}}"
    deep_head = '{"type":"user","message":' + nested(3000) + ',"x":"' + "y" * 40_000 + '"}'
    path = jsonl(
        tmp_path / "deep.jsonl",
        [
            assistant("m1", tool_use("toolu_1", "Read", {"file_path": f"{CWD}/a.py"})),
            deep_result,
            user(tool_result("toolu_1", "1\timport os\n2\t")),
            long_deep,
            deep_head,
            assistant("m2", tool_use("toolu_2", "Read", {"file_path": f"{CWD}/a.py", "limit": json.loads(nested(90))})),
        ],
    )
    transcript = open_transcript(str(path))
    assert [call.tool for call in transcript.calls] == ["Read", "Read"]
    assert transcript.problems == [
        "line 2: JSON nested deeper than 100 levels, skipped",
        "line 4: JSON nested deeper than 100 levels, skipped",
        "line 5: JSON nested deeper than 100 levels, skipped",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(path), "--root", str(files)],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 2
    problems = [line for line in done.stderr.splitlines() if line.startswith(f"agentpager: {path}: ")]
    assert problems == [f"agentpager: {path}: {problem}" for problem in transcript.problems]


def test_deep_arguments_are_kept_as_their_text(tmp_path: Path) -> None:
    """Codex's arguments are a JSON string, parsed again: 1,000 deep it raised RecursionError."""
    arguments = '{"command": ' + nested(1000) + "}"
    path = jsonl(
        tmp_path / "rollout-2026-11-01.jsonl",
        [
            {"timestamp": "2026-11-01T10:00:00Z", "type": "session_meta", "payload": {"id": "s", "cwd": CWD}},
            {
                "timestamp": "2026-11-01T10:00:00Z",
                "type": "response_item",
                "payload": {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": arguments},
            },
        ],
    )
    assert open_transcript(str(path)).calls[0].arguments == arguments


def test_a_deep_element_of_a_json_document_is_passed_over(tmp_path: Path) -> None:
    call = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}],
    }
    text = "[" + json.dumps(call) + "," + nested(5000) + ',{"role":"user","content":"]}"},' + json.dumps(call) + "]"
    (tmp_path / "deep.json").write_text(text)
    transcript = open_transcript(str(tmp_path / "deep.json"))
    assert len(transcript.calls) == 2
    assert transcript.problems == [
        f"character {len(json.dumps(call)) + 2:,}: JSON nested deeper than 100 levels, skipped"
    ]


def test_a_pasted_call_nested_too_deep_is_refused() -> None:
    from agentpager.exchange import read_call

    with pytest.raises(ValueError, match="^JSON nested deeper than 100 levels$"):
        read_call('{"name": "Read", "arguments": ' + nested(1000) + "}")
    with pytest.raises(ValueError, match="^JSON nested deeper than 100 levels$"):
        read_call('{"name": "Read", "arguments": "' + nested(200) + '"}')


def test_a_record_too_long_to_read_whole_is_not_compared(tmp_path: Path, files: Path, monkeypatch) -> None:
    """A 1 GB line took 2-3 GB to replay: its recorded output was read whole to be compared. Past
    MAX_RECORD_BYTES (here 1 MiB, for a 20 MB line) it is not read again."""
    import tracemalloc

    from agentpager.logs import records

    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 1 << 20)
    path = jsonl(
        tmp_path / "big.jsonl",
        [
            assistant("m1", tool_use("toolu_1", "Read", {"file_path": f"{CWD}/a.py"})),
            user(tool_result("toolu_1", "x" * 20_000_000)),
            assistant("m2", tool_use("toolu_2", "Read", {"file_path": f"{CWD}/a.py"})),
            user(tool_result("toolu_2", "1\timport os\n2\t")),
        ],
    )
    transcript = open_transcript(str(path))
    replayer = Replayer(transcript, str(files))
    tracemalloc.start()
    try:
        replays = [replayer.replay(call) for call in transcript.calls]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(r.status, r.reason) for r in replays] == [
        ("not replayable", "its recorded output is in a record not read whole (20 MB, more than 1 MiB)"),
        ("same", ""),
    ]
    assert replays[0].result is not None and replays[0].result.text == "1\timport os\n2\t"
    assert peak < 5_000_000
