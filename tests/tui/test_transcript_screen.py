"""The transcript screen: calls with replay statuses, the difference, and opening a call's window."""

from __future__ import annotations

import json
from pathlib import Path

from pilot_helpers import settle
from textual.widgets import TextArea

from agentpager import Workspace
from agentpager.transcripts import open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.messages import FileChosen
from agentpager.tui.transcript_screen import CallList, TranscriptScreen
from agentpager.tui.tree import WorkspaceTree

SIZE = (200, 55)


def session(root: Path, count: int = 3) -> Path:
    """A Claude Code session in ``root`` reading big.txt, with one stale read and a shell call."""
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    read = Workspace(root, "claude-code")
    cwd = str(root)
    lines: list[dict] = [{"type": "user", "cwd": cwd, "message": {"role": "user", "content": "go"}}]
    for n in range(count):
        if n % 3 == 2:
            name, arguments, output = "Bash", {"command": "ls"}, "big.txt"
        else:
            name, arguments = "Read", {"file_path": f"{cwd}/big.txt", "offset": 100 * n + 400, "limit": 20}
            output = read.call(name, arguments).text if n % 3 == 0 else "stale"
        lines.append(
            {
                "type": "assistant",
                "cwd": cwd,
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{n}", "name": name, "input": arguments}],
                },
            }
        )
        lines.append(
            {
                "type": "user",
                "cwd": cwd,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}],
                },
            }
        )
    path = root / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


async def test_calls_replay_and_open_in_the_viewer(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        calls = screen.query_one(CallList)
        assert [calls.summaries[i].status for i in range(3)] == ["same", "differs", "not replayable"]
        assert calls.summaries[0].tokens == Workspace.count_tokens(
            screen.transcript.recorded(screen.transcript.calls[0])
        )
        await pilot.press("down")
        await settle(pilot)
        difference = screen.query_one("#difference", TextArea).text
        assert difference.startswith("--- recorded\n+++ replayed now\n") and "-stale" in difference
        await pilot.press("up", "o")
        await settle(pilot)
        assert not isinstance(app.screen, TranscriptScreen)
        assert app.viewer.window.top == 400
        assert app.panel.pinned and app.panel.outcome.tool == "Read"
        assert app.panel.outcome.arguments == {"file_path": "big.txt", "offset": 400, "limit": 20}
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen), "t comes back to the transcript"


async def test_shell_calls_have_no_window(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "o")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)


async def test_the_tree_offers_a_transcript(root: Path) -> None:
    session(root)
    app = AgentPagerApp(Workspace(root))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(WorkspaceTree).post_message(FileChosen("session.jsonl"))
        await settle(pilot)
        assert app.offered_transcript == "session.jsonl"
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 3


async def test_ten_thousand_calls(root: Path) -> None:
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root, 10_000))))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        calls = app.screen.query_one(CallList)
        assert calls.virtual_size.height == 10_000
        await pilot.press("end")
        assert calls.cursor == 9_999
        app.screen.workers.cancel_all()
