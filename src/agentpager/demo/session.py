"""The demo's Claude Code session: an agent looking into the failed export, its reads recorded exactly.

Each Read's and Bash's result is what the claude-code profile answers for the demo's files, so
replaying them says ``same``; the session ends by editing ``src/shop/config.py``, which the demo
then does, so the Read of that file made before the edit says ``differs``. The other tools (Grep,
Edit) are recorded with plausible outputs and listed as not replayable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentpager.demo.log import LogFacts
from agentpager.demo.project import TIMEOUT_AFTER, TIMEOUT_BEFORE
from agentpager.workspace import Workspace

VERSION = "2.1.130"
MODEL = "claude-sonnet-4-5"
SESSION_ID = "5d1c3a9e-0b7f-4c2e-9a61-3f2d8e4b7c10"


class _Writer:
    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None

    def record(self, kind: str, message: dict[str, Any]) -> None:
        n = len(self.records)
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        self.records.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "type": kind,
                "cwd": self.cwd,
                "sessionId": SESSION_ID,
                "version": VERSION,
                "gitBranch": "main",
                "uuid": uuid,
                "timestamp": f"2026-11-21T08:{14 + n // 30:02d}:{n * 2 % 60:02d}.000Z",
                "message": message,
            }
        )
        self.parent = uuid

    def prompt(self, text: str) -> None:
        self.record("user", {"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.record(
            "assistant",
            {
                "id": f"msg_demo{len(self.records):04d}",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [{"type": "text", "text": text}],
            },
        )

    def call(self, tool: str, arguments: dict[str, Any], output: str, is_error: bool = False, say: str = "") -> None:
        call_id = f"toolu_demo{len(self.records):04d}"
        content: list[dict[str, Any]] = [{"type": "text", "text": say}] if say else []
        content.append({"type": "tool_use", "id": call_id, "name": tool, "input": arguments})
        self.record(
            "assistant",
            {
                "id": f"msg_demo{len(self.records):04d}",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": content,
            },
        )
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": output}
        if is_error:
            result["is_error"] = True
        self.record("user", {"role": "user", "content": [result]})


def write_session(path: Path, workspace: Workspace, log: LogFacts) -> None:
    """The session JSONL at ``path``, its cwd the workspace root, its Reads answered by ``workspace``."""
    cwd = workspace.root.path
    reader = workspace.with_profile("claude-code", {})
    writer = _Writer(cwd)

    def read(name: str, say: str = "", **window: int) -> None:
        arguments: dict[str, Any] = {"file_path": f"{cwd}/{name}", **window}
        result = reader.call("Read", arguments)
        writer.call("Read", arguments, result.text, result.is_error, say)

    writer.prompt("The nightly export failed again last night. Find out why and fix it.")
    read("README.md", "I'll start with the project's README.")
    first_errors = log.errors[:5]
    grep = {
        "command": 'grep -n "charge failed" logs/app.log | head -5',
        "description": "Find payment errors in the log",
    }
    result = reader.call("Bash", grep)
    writer.call(
        "Bash", grep, result.text, result.is_error, "The README points at the log. Let me find the payment errors."
    )
    read("logs/app.log", "Let me read the log itself.")
    if first_errors:
        line = first_errors[0][0]
        read(
            "logs/app.log",
            "Too big to read whole; I'll read around the first error.",
            offset=max(line - 10, 1),
            limit=20,
        )
    writer.call(
        "Grep",
        {"pattern": "PAYMENT_TIMEOUT_S", "path": f"{cwd}/src"},
        f"Found 2 files\n{cwd}/src/shop/config.py\n{cwd}/src/shop/payments.py",
        say="Every failure is a read timeout after 5 s. Where is that timeout set?",
    )
    read("src/shop/payments.py")
    read("src/shop/config.py")
    config = f"{cwd}/src/shop/config.py"
    writer.call(
        "Edit",
        {"file_path": config, "old_string": TIMEOUT_BEFORE.strip(), "new_string": TIMEOUT_AFTER.strip()},
        f"The file {config} has been updated.",
        say="The provider answers in up to 20 s under load, so 5 s is too short. I'll raise it.",
    )
    read("fixtures/orders/order-0042.json", "And one of the orders the export sends, to check its shape.")
    writer.say(
        "The export failed because every charge timed out: `PAYMENT_TIMEOUT_S` was 5 s and the payment "
        "provider takes up to 20 s under load, so all three retries failed. I raised it to 30 s in "
        "`src/shop/config.py`."
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in writer.records))
