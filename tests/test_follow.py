"""Following a session that is still being written, subagents' files included."""

from __future__ import annotations

import json
from pathlib import Path

from agentpager.transcripts import open_transcript

CWD = "/p"


def line(kind: str, content: object, **extra: object) -> str:
    message = {"role": "assistant" if kind == "assistant" else "user", "content": content}
    record = {"type": kind, "cwd": CWD, "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "message": message}
    return json.dumps(record | extra) + "\n"


def call(call_id: str, tool: str, arguments: dict, **extra: object) -> str:
    return line("assistant", [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}], **extra)


def result(call_id: str, output: str, **extra: object) -> str:
    return line("user", [{"type": "tool_result", "tool_use_id": call_id, "content": output}], **extra)


def append(path: Path, *lines: str) -> None:
    with path.open("a") as file:
        file.write("".join(lines))


def subagent(agent_id: str, *lines: str) -> tuple[str, ...]:
    """Lines of a subagent's own file (every line says its agent)."""
    return tuple(
        text.replace('"type": ', f'"isSidechain": true, "agentId": "{agent_id}", "type": ', 1) for text in lines
    )


def session(tmp_path: Path) -> tuple[Path, Path]:
    """A session whose Task started subagent a1 (its file beside the session), then read a file."""
    main = tmp_path / "s.jsonl"
    main.write_text(
        line("user", "look around")
        + call("t1", "Task", {"prompt": "find the config"})
        + call("t2", "Read", {"file_path": f"{CWD}/x"})
        + result("t2", "x")
    )
    (tmp_path / "s" / "subagents").mkdir(parents=True)
    sub = tmp_path / "s" / "subagents" / "agent-a1.jsonl"
    sub.write_text("".join(subagent("a1", line("user", "find the config"), call("u1", "Glob", {"pattern": "*"}))))
    return main, sub


def listed(transcript) -> list[tuple]:  # noqa: ANN001 - a Transcript
    return [(c.index, c.tool, c.depth, c.parent, c.agent) for c in transcript.calls]


def test_new_calls_of_the_session_and_its_subagents_are_placed(tmp_path: Path) -> None:
    main, sub = session(tmp_path)
    transcript = open_transcript(str(main))
    assert listed(transcript) == [(0, "Task", 0, None, ""), (1, "Glob", 1, 0, "a1"), (2, "Read", 0, None, "")]
    append(sub, *subagent("a1", result("u1", "config.py"), call("u2", "Read", {"file_path": f"{CWD}/config.py"})))
    append(main, call("t3", "Task", {"prompt": "check the tests"}))
    assert transcript.follow() == 2
    assert listed(transcript) == [
        (0, "Task", 0, None, ""),
        (1, "Glob", 1, 0, "a1"),
        (2, "Read", 1, 0, "a1"),
        (3, "Read", 0, None, ""),
        (4, "Task", 0, None, ""),
    ]
    assert transcript.recorded(transcript.calls[1]) == "config.py"
    second = tmp_path / "s" / "subagents" / "agent-b2.jsonl"
    second.write_text("".join(subagent("b2", line("user", "check the tests"), call("v1", "Bash", {"command": "ls"}))))
    assert transcript.follow() == 1, "a subagent that started since is read from its start"
    assert listed(transcript)[4:] == [(4, "Task", 0, None, ""), (5, "Bash", 1, 4, "b2")]
    assert transcript.subagents == [str(sub), str(second)]
    assert transcript.follow() == 0


def test_a_subagent_file_still_empty_is_read_when_it_has_records(tmp_path: Path) -> None:
    main, _ = session(tmp_path)
    transcript = open_transcript(str(main))
    append(main, call("t3", "Task", {"prompt": "check the tests"}))
    second = tmp_path / "s" / "subagents" / "agent-b2.jsonl"
    second.write_text("")
    assert transcript.follow() == 1 and transcript.problems == []
    append(second, *subagent("b2", line("user", "check the tests"), call("v1", "Bash", {"command": "ls"})))
    assert transcript.follow() == 1
    assert listed(transcript)[-2:] == [(3, "Task", 0, None, ""), (4, "Bash", 1, 3, "b2")]
