"""Every session in the TUI: the browser's search and export, the viewer's key for the calls that
read the line in focus, and its gutter shaded by how many reads covered each line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pilot_helpers import settle, until
from rich.cells import cell_len
from rich.style import Style
from textual.widgets import OptionList

from agentpager import Workspace
from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.updating import update_calls
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.found_list import FoundList
from agentpager.tui.screens.reads import ReadsScreen
from agentpager.tui.screens.sessions import SessionsScreen
from agentpager.tui.screens.transcript import CallList, TranscriptScreen


def session(
    home: Path, cwd: Path, prompt: str = "Read the <script>x</script> app", output: str = "    10→line 10 needle"
) -> Path:
    """A Claude Code session in ``cwd`` that reads src/app.py twice: lines 10-14 (``output``), then all of it."""

    def line(kind: str, **fields: object) -> str:
        record = {
            "type": kind,
            "cwd": str(cwd),
            "sessionId": "s1",
            "version": "2.1.84",
            "timestamp": "2026-01-01T10:00:00Z",
        }
        return json.dumps(record | fields) + "\n"

    def call(call_id: str, arguments: dict, context: int) -> str:
        content = [{"type": "tool_use", "id": call_id, "name": "Read", "input": arguments}]
        usage = {"input_tokens": 0, "cache_read_input_tokens": context, "output_tokens": 1}
        return line(
            "assistant", message={"id": call_id, "role": "assistant", "model": "m", "content": content, "usage": usage}
        )

    def result(call_id: str, text: str) -> str:
        content = [{"type": "tool_result", "tool_use_id": call_id, "content": text}]
        return line("user", message={"role": "user", "content": content})

    directory = home / ".claude" / "projects" / "p"
    directory.mkdir(parents=True)
    path = directory / "s1.jsonl"
    path.write_text(
        line("user", message={"role": "user", "content": prompt})
        + call("a", {"file_path": f"{cwd}/src/app.py", "offset": 10, "limit": 5}, 100)
        + result("a", output)
        + call("b", {"file_path": f"{cwd}/src/app.py"}, 200)
        + result("b", "    1→line 1")
    )
    return path


def workspace(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    home = tmp_path / "home"
    session(home, root)
    return root, home


async def test_search_every_session_and_open_one_at_the_call(tmp_path: Path) -> None:
    root, home = workspace(tmp_path)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"needle", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        found = screen.query_one(FoundList)
        assert [line if isinstance(line, str) else (line.kind, line.call, line.excerpt) for line in found.lines] == [
            f"2026-01-01 10:00  claude  {root} · Read the <script>x</script> app",
            ("output", 0, "10→line 10 needle"),
        ]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        calls = app.screen.query_one(CallList)
        assert calls.current_call is not None and calls.current_call.call_id == "a"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")  # from the results back to every session
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen) and app.screen.found is None


async def test_export_a_session_from_the_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentpager.tui.screens import exporting

    monkeypatch.setattr(exporting, "EXPORT_SAID_FROM", 2)  # a session of that many calls says it began
    monkeypatch.chdir(tmp_path)  # a name typed is one there (each key typed took 50 ms: not a whole path)
    root, home = workspace(tmp_path)
    page = tmp_path / "shared.html"
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("E", *"shared.html", "enter")
        await until(pilot, page.exists, "the page written")
        await settle(pilot)
        said = [str(note.message) for note in app._notifications]
    assert said[-2:] == ["Replaying its 2 calls for shared.html…", "Wrote shared.html"]
    text = page.read_text()
    assert "Read the &lt;script&gt;x&lt;/script&gt; app" in text and "<script" not in text
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(120, 30)) as pilot:  # and from the session's transcript, as Markdown
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("E", *"shared.md", "enter")
        await until(pilot, (tmp_path / "shared.md").exists, "the Markdown written")
        await settle(pilot)
    assert (tmp_path / "shared.md").read_text().startswith("# Read the \\<script\\>x\\</script\\> app\n")


def indexed(home: Path) -> None:
    list_sessions(str(home))
    for _ in update_calls(str(home), workers=0):
        pass


async def test_the_gutter_shades_lines_by_their_reads(tmp_path: Path) -> None:
    root, home = workspace(tmp_path)
    indexed(home)
    app = AgentPagerApp(Workspace(root), open_path="src/app.py", sessions_home=str(home))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        viewer = app.viewer
        assert viewer.reads is not None
        assert [viewer.reads.shade(n) for n in (1, 9, 10, 14, 15, 30)] == [
            "reads-1",
            "reads-1",
            "reads-2",
            "reads-2",
            "reads-1",
            "reads-1",
        ]
        assert "read 2×, 100% of lines" in viewer.border_subtitle
        shade = viewer.get_component_rich_style("viewer--reads-2").bgcolor
        number = viewer._gutter(10)._segments[0]
        assert isinstance(number.style, Style) and number.style.bgcolor == shade
        assert viewer._gutter(1)._segments[0].style.bgcolor != shade


async def test_a_file_no_session_read_is_not_shaded(tmp_path: Path) -> None:
    root, home = workspace(tmp_path)
    (root / "other.txt").write_text("a\nb\n")
    indexed(home)
    app = AgentPagerApp(Workspace(root), open_path="other.txt", sessions_home=str(home))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.viewer.reads is None and "read" not in app.viewer.border_subtitle


async def test_the_reads_of_the_line_in_focus_open_a_session_at_the_call(tmp_path: Path) -> None:
    root, home = workspace(tmp_path)
    app = AgentPagerApp(Workspace(root), open_path="src/app.py", sessions_home=str(home))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.viewer.go_to_line(12)
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReadsScreen)
        options = app.screen.query_one(OptionList)
        assert [str(options.get_option_at_index(n).prompt) for n in range(options.option_count)] == [
            f"2026-01-01 10:00  claude  #0 Read  lines 10-14  {root} · Read the <script>x</script> app",
            f"2026-01-01 10:00  claude  #1 Read  lines 1-end  {root} · Read the <script>x</script> app",
        ]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        calls = app.screen.query_one(CallList)
        assert calls.current_call is not None and calls.current_call.call_id == "b"


async def test_a_search_row_keeps_the_text_found_in_sight_at_80x24(tmp_path: Path) -> None:
    """The excerpt is cut around the text found, by cells: far into a long path, or after wide characters."""
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("line\n" * 30)
    grep = "/home/dev/work/service-109/src/core/git/remote-manager.ts:41: export class RemoteManager {"
    session(home, root, prompt="テストシナリオと実装ログの確認、その後 remote-manager を直す", output=grep)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"remote-manager", "enter")
        await settle(pilot)
        found = app.screen.query_one(FoundList)
        width = found.scrollable_content_region.width
        rows = ["".join(segment.text for segment in found.render_line(y)) for y in range(len(found.lines))]
        assert [row.split()[0] for row in rows[1:]] == ["prompt", "output"], rows
        for row in rows[1:]:
            assert "remote-manager" in row and cell_len(row) == width, row
