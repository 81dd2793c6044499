"""What the model received, beside what the log kept: ``Replay.received`` and ``replay --json``.

The session below is shaped as Claude Code 2.1.332 writes its logs (``tests/goldens/claude-code/2.1.332``
holds the real ones' texts, log and request side by side): a Read and a Bash call that moves the shell,
the result logged before the trim and the reminders its request adds for claude-sonnet-4-5.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentpager.transcripts import open_transcript
from agentpager.transcripts.replay import Replayer

COUNTDOWN = "\n\n<system-reminder>\n<total_tokens>{} tokens left</total_tokens>\n</system-reminder>"


def claude_code_session(root: Path, model: str, version: str = "2.1.332") -> Path:
    (root / "main.py").write_text("def main():\n    return 1\n")
    (root / "src").mkdir()
    (root / "src" / "strings.py").write_text("a\nb\n")
    cwd = str(root)
    usage = {
        "input_tokens": 100,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 30,
        "output_tokens": 20,
    }
    calls = [
        ("Read", {"file_path": f"{cwd}/main.py"}, "1\tdef main():\n2\t    return 1\n3\t"),
        ("Bash", {"command": "cd src && cat strings.py"}, "a\nb"),
        ("Write", {"file_path": f"{cwd}/x.txt", "content": "x"}, "File created successfully at: x.txt"),
    ]
    lines: list[dict] = [{"type": "user", "cwd": cwd, "version": version, "message": {"role": "user", "content": "go"}}]
    for n, (tool, arguments, output) in enumerate(calls):
        message = {
            "id": f"m{n}",
            "role": "assistant",
            "model": model,
            "content": [{"type": "tool_use", "id": f"t{n}", "name": tool, "input": arguments}],
            "usage": usage,
        }
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}]}
        lines += [
            {"type": "assistant", "cwd": cwd, "version": version, "message": message},
            {"type": "user", "cwd": cwd, "version": version, "message": result},
        ]
    path = root / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_countdown_model_received_the_trimmed_result_with_the_reminders(tmp_path: Path) -> None:
    transcript = open_transcript(str(claude_code_session(tmp_path, "claude-sonnet-4-5")))
    replays = [Replayer(transcript, str(tmp_path)).replay(call) for call in transcript.calls]
    left = 15_000_000 - 2150  # the budget less what the request that made the call reported used
    assert [replay.recorded for replay in replays] == [
        "1\tdef main():\n2\t    return 1\n3\t",
        "a\nb",
        "File created successfully at: x.txt",
    ]
    assert [replay.received for replay in replays] == [
        "1\tdef main():\n2\t    return 1\n3" + COUNTDOWN.format(left),
        f"a\nb\n\n<system-reminder>\n# Environment update\n - Primary working directory: {tmp_path}/src "
        f"(was {tmp_path})\n</system-reminder>" + COUNTDOWN.format(left),
        "File created successfully at: x.txt" + COUNTDOWN.format(left),
    ]
    assert [replay.status for replay in replays] == ["same", "same", "not replayable"], "replay compares the log"


@pytest.mark.parametrize(("model", "version"), [("claude-opus-5-5", "2.1.332"), ("claude-sonnet-4-5", "2.1.84")])
def test_other_models_and_versions_received_what_was_logged(tmp_path: Path, model: str, version: str) -> None:
    transcript = open_transcript(str(claude_code_session(tmp_path, model, version)))
    replayer = Replayer(transcript, str(tmp_path))
    for call in transcript.calls:
        replay = replayer.replay(call)
        assert replay.received == replay.recorded


def test_replay_json_gives_both(tmp_path: Path) -> None:
    path = claude_code_session(tmp_path, "claude-sonnet-4-5")
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", "--json", "--root", str(tmp_path), str(path)],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout.splitlines()[0])
    assert first["recorded"] == "1\tdef main():\n2\t    return 1\n3\t"
    assert first["received"] == "1\tdef main():\n2\t    return 1\n3" + COUNTDOWN.format(15_000_000 - 2150)
    assert first["status"] == "same"


def test_a_log_of_model_messages_holds_what_the_model_received(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    messages = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": "x \n"},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    transcript = open_transcript(str(path))
    replay = Replayer(transcript, str(tmp_path)).replay(transcript.calls[0])
    assert replay.received == replay.recorded == "x \n"
