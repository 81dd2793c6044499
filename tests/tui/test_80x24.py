"""Every screen at 80x24: nothing that matters is cut off (the snapshots show the same at a glance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pilot_helpers import choose_profile, settle, type_ahead
from textual.widgets import Footer, Input, Label, Select, Static
from textual.widgets._footer import FooterKey

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.status import CallStatus
from agentpager.tui.tool_panel import ToolPanel
from agentpager.tui.tree import WorkspaceTree

SMALL = (80, 24)


def text_of(widget: WorkspaceTree) -> list[str]:
    """The lines a Line-API widget shows, as text."""
    return ["".join(segment.text for segment in widget.render_line(y)) for y in range(widget.size.height)]


def footer_keys(app: AgentPagerApp) -> list[str]:
    """The footer's keys that are shown whole: ``key description``."""
    shown = []
    footer_right = app.screen.size.width
    for key in app.screen.query(FooterKey):
        if key.display and key.region.width and key.region.right <= footer_right:
            shown.append(f"{key.key_display} {key.description}".strip())
    return shown


def big_file(root: Path) -> None:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))


async def test_the_warning_of_a_directory_over_20_files_shows_in_the_narrow_tree(root: Path) -> None:
    for folder, count in (("many", 130), ("many/deeper_folder", 25)):
        (root / folder).mkdir()
        for n in range(count):
            (root / folder / f"f{n:03d}.txt").write_text("x\n")
    app = AgentPagerApp(Workspace(root))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        assert tree.size.width == 23
        await pilot.press("down", "enter")  # many/: opened
        await settle(pilot)
        await pilot.press("down", "enter")  # many/deeper_folder/: opened
        await settle(pilot)
        lines = text_of(tree)
        assert [line for line in lines if "many/" in line or "deeper_fold" in line] == [
            line for line in lines if "⚠" in line
        ]
        assert len([line for line in lines if "⚠" in line]) == 2, lines


async def test_the_links_to_the_next_pages_show_their_arrow_in_the_narrow_tree(root: Path) -> None:
    (root / "many").mkdir()
    for n in range(150):
        (root / "many" / f"d{n:03d}").mkdir()
        (root / "many" / f"f{n:03d}.txt").write_text("x\n")
    app = AgentPagerApp(Workspace(root))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")  # many/: opened
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        links = [str(node.label) for node in tree.root.children[0].children if "▶" in str(node.label)]
        assert links == ["▶ directories 101-150 of 150", "▶ files 101-150 of 150"]
        tree.scroll_to(y=tree.virtual_size.height, animate=False)
        await settle(pilot)
        shown = [line.strip("│├└ ") for line in text_of(tree) if "101-150" in line or "▶ f" in line]
        assert shown and all(line.startswith("▶ files") for line in shown), text_of(tree)


async def test_the_footer_makes_its_keys_again_only_when_they_change(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual recomposes a footer for each change of bindings it is told of: five times as the app
    started, and twice more for each Tab that moved the focus between two widgets."""
    made: list[str] = []
    recompose = Footer.recompose

    async def counted(footer: Footer) -> None:
        made.append(" ".join(key.key for key in footer.query(FooterKey)))
        await recompose(footer)

    monkeypatch.setattr(Footer, "recompose", counted)
    big_file(root)
    app = AgentPagerApp(Workspace(root), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert len(made) == 1
        shown = []
        for _ in range(3):  # to the panel's tabs, its output, its first field
            await pilot.press("tab")
            await settle(pilot)
            shown.append(footer_keys(app))
        assert len(made) <= 4 and len(set(made)) == len(made), made
        assert "q Quit" in shown[1] and shown[2] == ["esc Back"], "a field takes the letters"


async def test_the_footer_shows_whole_keys_and_keeps_pin_sessions_and_quit(root: Path) -> None:
    big_file(root)
    app = AgentPagerApp(Workspace(root), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        for focus in (app.viewer, app.workspace_tree, app.panel.query_one("#output")):
            focus.focus()
            await settle(pilot)
            keys = footer_keys(app)
            for wanted in ("p Pin", "S Sessions", "q Quit", "? Help"):
                assert wanted in keys, (focus, keys)
            cut = [key for key in app.screen.query(FooterKey) if key.display and key.region.right > SMALL[0]]
            assert cut == []


async def test_a_footer_key_bound_to_the_footer_is_not_restyled_as_it_mounts(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's footer keys start compact and are then bound to the footer's ``compact``: each key of
    each recompose (every focus change) restyled itself twice, a tenth of an app's start."""
    restyled: list[FooterKey] = []
    restyle = FooterKey.update_node_styles

    def counted(key: FooterKey, animate: bool = True) -> None:
        restyled.append(key)
        restyle(key, animate)

    monkeypatch.setattr(FooterKey, "update_node_styles", counted)
    big_file(root)
    app = AgentPagerApp(Workspace(root), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.workspace_tree.focus()
        await settle(pilot)
        assert len(app.screen.query(FooterKey)) > 5
        assert [key for key in restyled if not key.has_class("-command-palette")] == []


async def test_after_t_tab_moves_the_focus_on(root: Path) -> None:
    """T shows the tree and focuses it at once: a Tab typed with it moves on to the viewer."""
    big_file(root)
    app = AgentPagerApp(Workspace(root), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert app.focused is app.viewer and not app.workspace_tree.display
        await type_ahead(pilot, "T", "tab")
        await settle(pilot)
        assert app.workspace_tree.display and app.focused is app.viewer
        await type_ahead(pilot, "shift+tab", "T", "tab")
        await settle(pilot)
        assert not app.workspace_tree.display and app.focused is not app.viewer, "from the viewer, on"


async def test_the_status_line_keeps_the_numbers(root: Path) -> None:
    deep = root / "a_fairly_long_directory_name" / "and_another_one"
    deep.mkdir(parents=True)
    (deep / "server_access.log").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    path = "a_fairly_long_directory_name/and_another_one/server_access.log"
    app = AgentPagerApp(Workspace(root), path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        summary = str(app.query_one(CallStatus).query_one("#call-summary", Label).render())
        assert summary.endswith('/server_access.log" start_line=450'), summary
        assert len(summary) <= 80 - 2 - len(str(app.query_one("#call-cost", Label).render())) - 2


@pytest.mark.parametrize("profile", ["gemini-cli", "openhands"])
async def test_the_status_line_keeps_the_file_name_and_the_numbers_of_every_profile(root: Path, profile: str) -> None:
    """A call that does not fit gives way fairly: its path is cut in the middle down to the file name and
    every number (which lines) is kept, however the profile names and orders them."""
    (root / "src" / "agentpager").mkdir(parents=True)
    lines = (f"    shown = describe(arguments, width={n})  # line {n}\n" for n in range(1, 1001))
    (root / "src" / "agentpager" / "cli.py").write_text("".join(lines))
    app = AgentPagerApp(Workspace(root), "src/agentpager/cli.py")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await choose_profile(pilot, profile)
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        summary = str(app.query_one(CallStatus).query_one("#call-summary", Label).render())
        assert app.panel.outcome is not None
        numbers = {name: value for name, value in app.panel.outcome.arguments.items() if not isinstance(value, str)}
        assert "450" in json.dumps(numbers), numbers
        for name, value in numbers.items():
            assert f"{name}={json.dumps(value)}" in summary, summary
        assert '/cli.py"' in summary, summary
        assert len(summary) <= 80 - 2 - len(str(app.query_one("#call-cost", Label).render())) - 2


async def test_argument_names_never_run_into_their_values(root: Path) -> None:
    big_file(root)
    app = AgentPagerApp(Workspace(root, "codex"), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        app.panel.load_call("codex", "exec_command", {"cmd": "sed -n 1,20p big.txt"})
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        panel = app.query_one(ToolPanel)
        for row in panel.query(".argument"):
            labels, inputs = row.query(Label), row.query(Input)
            if labels and inputs and str(labels.first().render()):
                name, field = labels.first(), inputs.first()
                assert name.region.x + len(str(name.render())) < field.region.x, str(name.render())


async def test_the_panel_offers_the_keys_that_work_where_the_cursor_is(root: Path) -> None:
    """``e`` puts the cursor in an argument, where ``e`` and ``p`` are typed: the panel still said
    "e edits the call" (a second e typed an e over the value) and "p follows the viewer"."""
    big_file(root)
    app = AgentPagerApp(Workspace(root), "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        mode = app.panel.query_one("#mode", Static)
        assert str(mode.render()) == "following the viewer · e edits the call"
        assert "e Edit" in footer_keys(app)
        await pilot.press("e")
        assert isinstance(app.focused, Input)
        assert str(mode.render()) == "following the viewer · esc goes back"
        assert "e Edit" not in footer_keys(app) and "esc Back" in footer_keys(app), "as the footer says"
        await pilot.press("shift+tab", "shift+tab")  # past the path, to the tool's chooser: no text typed there
        assert isinstance(app.focused, Select) and str(mode.render()) == "following the viewer · e edits the call"
        await pilot.press("e")
        assert app.focused is app.panel._fields["start_line"]
        await pilot.press("4")  # the value is selected: typing replaces it
        await settle(pilot)
        assert str(mode.render()) == "pinned: your call · esc, then p follows the viewer"
        await pilot.press("escape")
        assert str(mode.render()) == "pinned: your call · p follows the viewer"
        await pilot.press("p")
        await settle(pilot)
        assert str(mode.render()) == "following the viewer · e edits the call"


def deep_session(root: Path) -> Path:
    """A Claude Code session whose reads name a deep file, one of them by a long MCP tool name."""
    import json

    deep = root / "src" / "agentpager" / "transcripts" / "formats"
    deep.mkdir(parents=True)
    (deep / "collector.py").write_text("x = 1\n" * 600)
    path = f"{root}/src/agentpager/transcripts/formats/collector.py"
    records: list[dict] = [{"type": "user", "cwd": str(root), "message": {"role": "user", "content": "go"}}]
    for n, (tool, arguments) in enumerate(
        (
            ("Read", {"file_path": path, "offset": 450, "limit": 40}),
            ("mcp__filesystem__read_multiple_files", {"paths": [path]}),
        )
    ):
        use = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": arguments}
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x = 1\n"}
        records.append({"type": "assistant", "cwd": str(root), "message": {"id": f"m{n}", "content": [use]}})
        records.append({"type": "user", "cwd": str(root), "message": {"role": "user", "content": [result]}})
    session = root / "session.jsonl"
    session.write_text("".join(json.dumps(record) + "\n" for record in records))
    return session


async def test_the_call_list_keeps_file_names_and_numbers(root: Path) -> None:
    from agentpager.transcripts import open_transcript
    from agentpager.tui.screens.transcript import CallList

    app = AgentPagerApp.for_transcript(open_transcript(str(deep_session(root))), str(root))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        rows = text_of(app.screen.query_one(CallList))
        assert rows[0].rstrip().endswith('/collector.py" …') and ' file_path="src/' in rows[0], rows[0]
        assert "mcp__filesy…" in rows[1] and "collector.py" in rows[1], rows[1]
        assert all(len(row) <= 80 for row in rows)
