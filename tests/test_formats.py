"""Every transcript format, from hand-written fixtures that follow the sources each collector cites."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

CWD = "/home/dev/proj"


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_codex_legacy_jsonl(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-2025-08-20.jsonl",
        [
            {"id": "c27a", "timestamp": "2025-08-20T13:20:47.060Z", "instructions": None, "git": {"branch": "main"}},
            {"record_type": "state"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Listing"}]},
            {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "call_1"},
            {"type": "function_call_output", "call_id": "call_1", "output": '{"output":"a.py\\n","metadata":{}}'},
            {"record_type": "state"},
        ],
    )
    transcript = open_transcript(str(path))
    assert (transcript.format, transcript.parsed.session_id, transcript.parsed.started) == (
        "codex",
        "c27a",
        "2025-08-20T13:20:47.060Z",
    )
    assert [(c.tool, c.arguments) for c in transcript.calls] == [("shell", {"command": ["ls"]})]
    assert [(e.kind, e.text) for e in transcript.events] == [
        ("prompt", "list the files"),
        ("thinking", "Listing"),
        ("call", ""),
    ]


def test_codex_typescript_json(tmp_path: Path) -> None:
    document = {
        "session": {"timestamp": "2025-04-20T09:00:00.000Z", "id": "ts-1", "instructions": ""},
        "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "port the cli"}]},
            {"type": "function_call", "name": "shell", "call_id": "c9", "arguments": '{"command": ["cat", "a.py"]}'},
            {"type": "function_call_output", "call_id": "c9", "output": '{"output": "import os\\n", "metadata": {}}'},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        ],
    }
    path = tmp_path / "rollout-2025-04-20-ts-1.json"
    path.write_text(json.dumps(document, indent=2))
    transcript = open_transcript(str(path))
    assert (transcript.format, transcript.parsed.session_id) == ("codex", "ts-1")
    assert transcript.recorded(transcript.calls[0]) == '{"output": "import os\\n", "metadata": {}}'
    assert [e.kind for e in transcript.events] == ["prompt", "call", "text"]


def test_codex_cwd_changes_per_turn(tmp_path: Path) -> None:
    def line(kind: str, payload: dict) -> dict:
        return {"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload}

    path = write_jsonl(
        tmp_path / "rollout.jsonl",
        [
            line("session_meta", {"id": "s", "cwd": "/a", "cli_version": "0.60.1"}),
            line("turn_context", {"cwd": "/a", "model": "gpt-5"}),
            line("response_item", {"type": "function_call", "name": "read_file", "call_id": "1", "arguments": "{}"}),
            line("turn_context", {"cwd": "/b", "model": "gpt-5"}),
            line("response_item", {"type": "function_call", "name": "read_file", "call_id": "2", "arguments": "{}"}),
            line(
                "event_msg",
                {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {"input_tokens": 9},
                        "last_token_usage": {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 7},
                        "model_context_window": 258400,
                    },
                },
            ),
        ],
    )
    transcript = open_transcript(str(path))
    assert [(c.cwd, c.version) for c in transcript.calls] == [("/a", "0.60.1"), ("/b", "0.60.1")]
    (turn,) = transcript.turns
    assert (turn.input, turn.cache_read, turn.output, turn.window, turn.context) == (200, 1000, 7, 258400, 1200)


GEMINI_MESSAGES = [
    {"id": "u1", "timestamp": "2026-04-28T01:00:00Z", "type": "user", "content": [{"text": "read a.py"}]},
    {
        "id": "g1",
        "timestamp": "2026-04-28T01:01:00Z",
        "type": "gemini",
        "content": "Reading it.",
        "model": "gemini-2.5-pro",
        "thoughts": [{"subject": "Plan", "description": "Open the file", "timestamp": "2026-04-28T01:00:30Z"}],
        "tokens": {"input": 1000, "output": 20, "cached": 600, "thoughts": 5, "tool": 0, "total": 1025},
        "toolCalls": [
            {
                "id": "read_file-1",
                "name": "read_file",
                "args": {"absolute_path": f"{CWD}/a.py"},
                "result": [
                    {
                        "functionResponse": {
                            "id": "read_file-1",
                            "name": "read_file",
                            "response": {"output": "import os\n"},
                        }
                    }
                ],
                "status": "success",
                "timestamp": "2026-04-28T01:01:00Z",
            }
        ],
    },
]


def check_gemini(path: Path) -> None:
    transcript = open_transcript(str(path))
    assert (transcript.format, transcript.parsed.model, transcript.parsed.session_id) == (
        "gemini-cli",
        "gemini-2.5-pro",
        "9c90babd",
    )
    (call,) = transcript.calls
    assert (call.tool, call.arguments, transcript.recorded(call)) == (
        "read_file",
        {"absolute_path": f"{CWD}/a.py"},
        "import os\n",
    )
    assert [(e.kind, e.text) for e in transcript.events] == [
        ("prompt", "read a.py"),
        ("thinking", "Plan\nOpen the file"),
        ("text", "Reading it."),
        ("call", ""),
    ]
    (turn,) = transcript.turns
    assert (turn.input, turn.cache_read, turn.output) == (400, 600, 25)


def test_gemini_json_chat(tmp_path: Path) -> None:
    document = {
        "sessionId": "9c90babd",
        "projectHash": "abc123",
        "startTime": "2026-04-28T01:00:00Z",
        "lastUpdated": "2026-04-28T01:05:00Z",
        "messages": GEMINI_MESSAGES,
    }
    path = tmp_path / "session-2026-04-28T01-00-9c90babd.json"
    path.write_text(json.dumps(document, indent=2))
    check_gemini(path)
    assert open_transcript(str(path)).parsed.ended == "2026-04-28T01:05:00Z"


def test_gemini_jsonl_chat(tmp_path: Path) -> None:
    meta = {"sessionId": "9c90babd", "projectHash": "abc123", "startTime": "2026-04-28T01:00:00Z", "kind": "main"}
    path = write_jsonl(
        tmp_path / "session-2026-04-28T01-00-9c90babd.jsonl",
        [meta, *GEMINI_MESSAGES, {"$set": {"lastUpdated": "2026-04-28T01:05:00Z"}}],
    )
    check_gemini(path)


def test_swe_agent_trajectory(tmp_path: Path) -> None:
    document = {
        "environment": "swe_main",
        "trajectory": [
            {
                "action": "open src/a.py 10",
                "observation": "[File: /repo/src/a.py (3 lines total)]",
                "response": "Let me open it.\n```\nopen src/a.py 10\n```",
                "thought": "Let me open it.",
                "execution_time": 0.2,
                "state": {"open_file": "/repo/src/a.py", "working_dir": "/repo"},
                "query": [],
            }
        ],
        "history": [{"role": "system", "content": "You are...", "message_type": "thought"}],
        "info": {"swe_agent_version": "1.1.0", "model_stats": {"tokens_sent": 10}},
    }
    path = tmp_path / "task.traj"
    path.write_text(json.dumps(document, indent=2))
    transcript = open_transcript(str(path))
    (call,) = transcript.calls
    assert (transcript.format, call.tool, call.arguments, call.cwd) == (
        "swe-agent",
        "bash",
        {"command": "open src/a.py 10"},
        "/repo",
    )
    assert transcript.recorded(call) == "[File: /repo/src/a.py (3 lines total)]"
    assert transcript.parsed.version == "1.1.0"


def test_openhands_events(tmp_path: Path) -> None:
    arguments = {"command": "view", "path": "/workspace/a.py"}
    events = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Look at a.py"}},
        {
            "id": 1,
            "source": "agent",
            "action": "read",
            "args": {"path": "/workspace/a.py"},
            "tool_call_metadata": {
                "function_name": "str_replace_editor",
                "tool_call_id": "toolu_1",
                "model_response": {
                    "choices": [
                        {
                            "message": {
                                "tool_calls": [{"id": "toolu_1", "function": {"arguments": json.dumps(arguments)}}]
                            }
                        }
                    ]
                },
            },
        },
        {
            "id": 2,
            "source": "agent",
            "observation": "read",
            "content": "     1\timport os\n",
            "cause": 1,
            "tool_call_metadata": {"tool_call_id": "toolu_1"},
        },
        {"action": "run", "args": {"command": "ls"}, "source": "agent"},
        {"observation": "run", "content": "a.py", "source": "agent"},
    ]
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(events))
    transcript = open_transcript(str(path))
    assert transcript.format == "openhands"
    assert [(c.tool, c.arguments) for c in transcript.calls] == [
        ("str_replace_editor", arguments),
        ("run", {"command": "ls"}),
    ]
    assert [transcript.recorded(c) for c in transcript.calls] == ["     1\timport os\n", "a.py"]


def claude_line(kind: str, message: dict, **extra: object) -> dict:
    return {
        "type": kind,
        "cwd": CWD,
        "sessionId": "s1",
        "version": extra.pop("version", "2.0.21"),
        "timestamp": "2026-01-01T00:00:00Z",
        "message": message,
        **extra,
    }


def test_claude_code_subagents_in_their_own_files(tmp_path: Path) -> None:
    session = tmp_path / "s1.jsonl"
    write_jsonl(
        session,
        [
            claude_line("user", {"role": "user", "content": "explore"}),
            claude_line(
                "assistant",
                {
                    "id": "m1",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Task",
                            "input": {"prompt": "find the config", "subagent_type": "Explore"},
                        }
                    ],
                    "usage": {
                        "input_tokens": 5,
                        "cache_read_input_tokens": 100,
                        "cache_creation_input_tokens": 50,
                        "output_tokens": 9,
                    },
                },
            ),
            claude_line(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "found it"}]},
                toolUseResult={
                    "status": "completed",
                    "agentId": "a1b2",
                    "content": [{"type": "text", "text": "found it"}],
                },
            ),
            claude_line(
                "assistant",
                {
                    "id": "m2",
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t3", "name": "Read", "input": {"file_path": f"{CWD}/a.py"}}
                    ],
                },
                version="2.1.200",
            ),
            claude_line(
                "user",
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t3", "content": "File unchanged since last read."}
                    ],
                },
                toolUseResult={"type": "file_unchanged", "file": {"filePath": f"{CWD}/a.py"}},
                version="2.1.200",
            ),
        ],
    )
    (tmp_path / "s1" / "subagents").mkdir(parents=True)
    write_jsonl(
        tmp_path / "s1" / "subagents" / "agent-a1b2.jsonl",
        [
            claude_line("user", {"role": "user", "content": "find the config"}, isSidechain=True, agentId="a1b2"),
            claude_line(
                "assistant",
                {
                    "id": "x",
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": f"{CWD}/a.py"}}
                    ],
                },
                isSidechain=True,
                agentId="a1b2",
            ),
            claude_line(
                "user",
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "1\timport os\n2\t"}],
                },
                isSidechain=True,
                agentId="a1b2",
            ),
        ],
    )
    transcript = open_transcript(str(session))
    assert [(c.index, c.tool, c.depth, c.parent, c.agent, c.version) for c in transcript.calls] == [
        (0, "Task", 0, None, "", "2.0.21"),
        (1, "Read", 1, 0, "a1b2", "2.0.21"),
        (2, "Read", 0, None, "", "2.1.200"),
    ]
    assert transcript.recorded(transcript.calls[1]) == "1\timport os\n2\t"
    # m2 records no usage: its turn is there, to be estimated
    assert [(turn.context, turn.output, turn.model, turn.estimated) for turn in transcript.turns] == [
        (155, 9, "claude-sonnet-4-5", False),
        (0, 0, "", True),
    ]
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("import os\n")
    replays = [Replayer(transcript, str(root)).replay(call) for call in transcript.calls]
    assert [r.status for r in replays] == ["not replayable", "same", "unchanged"]
    assert replays[2].matches is None


def test_claude_code_inline_sidechains_and_stream_json(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "stream.jsonl",
        [
            {
                "type": "system",
                "subtype": "init",
                "cwd": CWD,
                "session_id": "s",
                "claude_code_version": "1.0.98",
                "model": "claude-opus-4-1",
            },
            {
                "type": "assistant",
                "message": {
                    "id": "m",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "p"}}],
                },
            },
            {
                "type": "assistant",
                "isSidechain": True,
                "message": {
                    "id": "n",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}}],
                },
            },
            {
                "type": "user",
                "isSidechain": True,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "a.py"}],
                },
                "tool_use_result": {"stdout": "a.py"},
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}],
                },
            },
        ],
    )
    transcript = open_transcript(str(path))
    assert (transcript.parsed.version, transcript.parsed.model) == ("1.0.98", "claude-opus-4-1")
    assert [(c.tool, c.depth, c.parent) for c in transcript.calls] == [("Task", 0, None), ("Bash", 1, 0)]
    replay = Replayer(transcript, str(tmp_path)).replay(transcript.calls[1])
    assert replay.plan is not None and (replay.plan.profile, replay.plan.tool) == ("claude-code@2.0", "Bash")
    assert replay.result is not None and (replay.result.text, replay.status) == ("stream.jsonl", "differs")


RTCHESS = os.environ.get("AGENTPAGER_RTCHESS", "")


@pytest.mark.skipif(not os.path.isfile(RTCHESS), reason="the real Codex session (pinouchon/rtchess at b8d8edf) is not here")
def test_the_real_codex_session() -> None:
    """pinouchon/rtchess ``dev_history/exported-session.jsonl`` at b8d8edf (Codex 0.60.1): set
    $AGENTPAGER_RTCHESS to a copy of it (its shell reads replay in ``test_shell_replay.py``)."""
    transcript = open_transcript(RTCHESS)
    assert (transcript.format, len(transcript.calls), transcript.parsed.version) == ("codex", 298, "0.60.1")
    assert transcript.cwd == "/Users/pinouchon/code/rtchess"
    assert len([call for call in transcript.calls if call.tool == "shell_command"]) == 121
    assert transcript.turns[-1].window == 258400 and transcript.turns[-1].context == 153122
