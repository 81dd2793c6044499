"""Daily use, driven with Pilot: small terminals, hand-made calls, what a call covers, the pager keys
people know from less, the tree, and what empty and failing files say."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pilot_helpers import choose_profile, settle, until
from samples import png_bytes
from textual.widgets import Input, Select, TextArea

from agentpager import Workspace
from agentpager.tui import tree as tree_module
from agentpager.tui import viewer as viewer_module
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.lines import Shading
from agentpager.tui.screens.find_file import Candidates, FindFile, fuzzy
from agentpager.tui.screens.help import HelpScreen
from agentpager.tui.status import CallStatus
from agentpager.tui.tool_panel import ToolPanel
from agentpager.tui.tree import WorkspaceTree
from agentpager.tui.viewer import START, FileViewer

SMALL = (80, 24)
LARGE = (200, 55)


@pytest.fixture
def workspace_dir(root: Path) -> Path:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    (root / "wide.txt").write_text("".join(f"{n:03d} " + "abcdefghij" * 30 + "\n" for n in range(1, 101)))
    (root / "empty.txt").write_text("")
    (root / "image.png").write_bytes(png_bytes())
    many = root / "many"
    many.mkdir()
    for n in range(250):
        (many / f"f{n:03d}.txt").write_text("x\n")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}\n")
    return root


def make_app(root: Path, open_path: str | None = None, profile: str = "qq", **options: object) -> AgentPagerApp:
    app = AgentPagerApp(Workspace(root, profile, **options), open_path)  # type: ignore[arg-type]
    app.animation_level = "none"
    return app


def bytes_before(line: int) -> int:
    return sum(len(f"line {n}\n") for n in range(1, line))


def on_screen(app: AgentPagerApp, widget: object) -> bool:
    region = widget.region  # type: ignore[attr-defined]
    return region.width > 0 and region.height > 0 and app.screen.region.contains_region(region)


def call_shown(app: AgentPagerApp) -> tuple[str, dict]:
    outcome = app.panel.outcome
    assert outcome is not None
    return outcome.tool, outcome.arguments


# -- small terminals ------------------------------------------------------------------------------


async def test_at_80x24_every_part_is_reachable(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        assert tree.has_focus and tree.region.width <= 24
        big = next(node for node in tree.root.children if str(node.label) == "big.txt")
        tree.select_node(big)
        await settle(pilot)
        assert tree.has_focus, "the focus stays in the tree while a file is shown"
        status = app.query_one(CallStatus)
        assert on_screen(app, status) and status.region.height == 1
        assert str(status.query_one("#call-summary").render()) == 'read_file path="big.txt" start_line=1'
        assert str(status.query_one("#call-cost").render()) == "1,956 chars · 860 tok"
        output = app.panel.query_one("#output", TextArea)
        assert on_screen(app, output), "the panel shows the output"
        assert output.text.startswith("[File: big.txt | Lines 1-200 of 1000]")
        assert not app.panel.query_one("#call", TextArea).display or not on_screen(
            app, app.panel.query_one("#call-part")
        )
        await pilot.press("T")
        assert not tree.display and app.viewer.has_focus and app.viewer.region.width == 80
        await pilot.press("e")
        field = app.panel._fields["start_line"]
        assert field.has_focus and on_screen(app, field), "e shows the call and puts the cursor in it"
        assert not app.panel.query_one("#output").region.height, "the call and the output are tabs"
        footer_keys = {
            binding.description for _, binding, enabled, _ in app.screen.active_bindings.values() if binding.show
        }
        assert "Back" in footer_keys and "Quit" not in footer_keys, "the footer shows the editing keys"
        await pilot.press(*"450")
        await settle(pilot)
        assert app.viewer.window.top == 450 and app.panel.pinned
        assert str(status.query_one("#call-summary").render()) == 'pinned read_file path="big.txt" start_line=450'
        await pilot.press("escape")
        assert app.viewer.has_focus and on_screen(app, output)
        await pilot.press("question_mark")
        await settle(pilot)
        help_box = app.screen.query_one("VerticalScroll")
        assert isinstance(app.screen, HelpScreen) and app.screen.region.contains_region(help_box.region)


async def test_a_file_opened_in_a_small_terminal_gets_the_whole_width(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert not app.query_one(WorkspaceTree).display
        await pilot.press("T")
        assert app.query_one(WorkspaceTree).display and app.query_one(WorkspaceTree).has_focus


@pytest.mark.parametrize(("size", "layout"), [((80, 24), "-small"), ((120, 40), "-narrow"), ((200, 55), "-wide")])
async def test_the_layout_at_each_size(workspace_dir: Path, size: tuple[int, int], layout: str) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.screen.has_class(layout)
        panel, viewer = app.query_one(ToolPanel), app.viewer
        output = panel.query_one("#output")
        assert on_screen(app, output) and on_screen(app, app.query_one(CallStatus))
        if layout == "-wide":
            assert panel.region.x > viewer.region.x and on_screen(app, panel.query_one("#call"))
        else:
            assert panel.region.y > viewer.region.y, "under the viewer"
        if layout == "-narrow":
            call = panel.query_one("#call")
            assert on_screen(app, call) and call.region.x < output.region.x, "the call beside the output"


# -- hand-crafting a call -------------------------------------------------------------------------


async def test_the_call_edited_as_json(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        editor = app.panel.query_one("#call", TextArea)
        editor.focus()
        editor.text = '{"name": "read_file", "arguments": {"path": "big.txt", "start_line": 3'
        await settle(pilot)
        problem = str(app.panel.query_one("#call-problem").render())
        assert problem.startswith("Not JSON yet:") and call_shown(app)[1]["start_line"] == 1, "nothing is lost"
        editor.text += "00}}"
        await settle(pilot)
        assert call_shown(app) == ("read_file", {"path": "big.txt", "start_line": 300})
        assert app.panel.pinned and app.viewer.window.top == 300
        assert app.panel._fields["start_line"].value == "300"
        pasted = {
            "type": "function",
            "function": {"name": "fs_read", "arguments": '{"path": "big.txt", "end_byte": 20}'},
        }
        editor.text = json.dumps(pasted)
        await settle(pilot)
        assert app.panel.profile == "forge", "a call of another profile's tool switches to that profile"
        assert call_shown(app) == ("fs_read", {"path": "big.txt", "end_byte": 20})
        assert json.loads(app.panel.outcome.result.text)["content"] == "line 1\nline 2\nline 3"
        editor.text = '{"name": "Bash", "arguments": {"command": "ls"}}'
        await settle(pilot)
        assert app.panel.profile == "claude-code" and call_shown(app) == ("Bash", {"command": "ls"})
        editor.text = '{"name": "Write", "arguments": {"file_path": "a.txt", "content": "x"}}'
        await settle(pilot)
        problem = str(app.panel.query_one("#call-problem").render())
        assert problem == "No profile has a tool 'Write' taking file_path, content."


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("vault", ("read_file", {"path": "big.txt", "offset": bytes_before(450)})),
        ("crush", ("file_read", {"filename": "big.txt", "start_line": 450, "end_line": 649})),
        ("claude-code", ("Read", {"file_path": "big.txt", "offset": 450, "limit": 200})),
    ],
)
async def test_switching_profile_while_pinned_carries_the_window_over(
    workspace_dir: Path, profile: str, expected: tuple
) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.panel.load_call("qq", "read_file", {"path": "big.txt", "start_line": 450})
        await settle(pilot)
        await choose_profile(pilot, profile)
        await settle(pilot)
        assert app.panel.pinned
        assert call_shown(app) == expected


async def test_switching_profile_follows_a_directory_or_an_unreadable_file_or_nothing(workspace_dir: Path) -> None:
    """Without a file in the viewer, a profile chosen shows its call for what the panel follows: a
    directory's listing (none without a listing tool), an unreadable file's read, or no call at all
    before anything was chosen (its read tool ran with no arguments, and its error was shown)."""
    app = make_app(workspace_dir)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await choose_profile(pilot, "forge")
        await settle(pilot)
        assert app.panel.outcome is None, "nothing chosen yet"
        app.post_message(WorkspaceTree.DirectoryChosen("many", None))
        await settle(pilot)
        assert app.panel.outcome is None, "forge has no tool that lists a directory"
        await choose_profile(pilot, "codex")
        await settle(pilot)
        assert call_shown(app) == ("exec_command", {"cmd": "ls many"})
        await choose_profile(pilot, "forge")
        await settle(pilot)
        assert app.panel.outcome is None, "not codex's listing under forge's name"
        assert app.query_one(CallStatus).query_one("#call-summary").render().plain == "no call yet"
        app.post_message(WorkspaceTree.FileChosen("image.png"))
        await settle(pilot)
        assert call_shown(app) == ("fs_read", {"path": "image.png"})
        await choose_profile(pilot, "qq")
        await settle(pilot)
        assert call_shown(app) == ("read_file", {"path": "image.png"})
        assert app.panel.outcome.result.text.startswith("Error: Binary files are not supported.")


async def test_a_tool_chosen_starts_from_the_open_files_call_or_its_directory(workspace_dir: Path) -> None:
    """list_files and count_files, chosen while a file is open, take its directory (they took the
    file's path, and answered "is not a directory"); read_file chosen back takes the file."""
    app = make_app(workspace_dir, "many/f007.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        tools = app.panel.query_one("#tool", Select)
        for tool, expected in (
            ("list_files", {"path": "many"}),
            ("count_files", {"path": "many"}),
            ("read_file", {"path": "many/f007.txt"}),
        ):
            tools.value = tool
            await settle(pilot)
            assert call_shown(app) == (tool, expected), tool
            assert not app.panel.outcome.result.is_error, tool


async def test_editing_crushs_start_line_moves_its_end_line(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt", "crush")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        tool, arguments = call_shown(app)
        assert arguments["start_line"] == 1 and (end := arguments["end_line"]) < 100
        await pilot.press("e", *"450")  # the field's text is selected: typing replaces it
        await settle(pilot)
        assert call_shown(app) == ("file_read", {"filename": "big.txt", "start_line": 450, "end_line": 449 + end})
        assert app.panel._fields["end_line"].value == str(449 + end)
        assert not app.panel.outcome.result.is_error


# -- what the call covers -------------------------------------------------------------------------


async def test_the_viewer_shades_what_the_call_covers(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        assert app.viewer.shading == Shading("big.txt", 450, 649)
        assert app.viewer.border_subtitle == "450-649 / 1,000 (64%)"
        gutter = "".join(segment.text for segment in app.viewer._gutter(450))
        assert gutter == "  450▌ "


async def test_each_file_chosen_gets_its_own_call_even_at_the_same_window(workspace_dir: Path) -> None:
    """Two files shown from their first line have the same window: choosing the second (or the
    same one again) still gives the panel its call and the viewer its shading."""
    (workspace_dir / "other.txt").write_text("".join(f"other {n}\n" for n in range(1, 1001)))
    app = make_app(workspace_dir)
    async with app.run_test(size=SMALL) as pilot:
        for path in ("big.txt", "other.txt", "big.txt", "big.txt"):
            app.post_message(WorkspaceTree.FileChosen(path))
            await settle(pilot)
            assert call_shown(app) == ("read_file", {"path": path, "start_line": 1}), path
            assert app.viewer.shading == Shading(path, 1, 200), path


async def test_choosing_the_file_shown_keeps_its_place(workspace_dir: Path) -> None:
    """Enter on the file already shown keeps the viewer where it was (it opened it again at line 1),
    and the panel follows the viewer again, after a directory or a pinned call."""
    app = make_app(workspace_dir)
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(WorkspaceTree.FileChosen("big.txt"))
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        app.post_message(WorkspaceTree.DirectoryChosen("many", None))
        await settle(pilot)
        app.panel.load_call("qq", "read_file", {"path": "big.txt", "start_line": 700})
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        app.post_message(WorkspaceTree.FileChosen("big.txt"))
        await settle(pilot)
        assert app.viewer.window.top == 450
        assert not app.panel.pinned
        assert call_shown(app) == ("read_file", {"path": "big.txt", "start_line": 450})


async def test_characters_a_vault_call_covers(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt", "vault")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.panel.load_call("vault", "read_file", {"path": "big.txt", "offset": bytes_before(450) + 3, "length": 20})
        await settle(pilot)
        # "e 450\nline 451\nline ": from column 3 of line 450 to column 5 of line 452.
        assert app.viewer.shading == Shading("big.txt", 450, 452, 3, 5)


async def test_where_the_output_guard_cuts(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt", max_output_chars=300)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        assert app.viewer.shading == Shading("big.txt", 1, 200, cut=(22, 7))
        assert "✂ the guard cuts at line 22" in app.viewer.border_subtitle
        marks = [app.viewer._gutter(number).text[-2] for number in (21, 22, 23)]
        assert marks == ["▌", "✂", "╎"]
        assert app.viewer._content(22).text == "line 22 ✂ the output guard cuts here"
        assert "cut by the output guard" in str(app.query_one(CallStatus).query_one("#call-cost").render())


# -- pager basics ---------------------------------------------------------------------------------


async def test_smart_case_search_with_history(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"LINE 5$", "enter")
        await settle(pilot)
        assert app.viewer.match_count == 0, "a capital letter makes case matter"
        await pilot.press("slash", *"line 50$", "enter")
        await settle(pilot)
        assert app.viewer.match_count == 1 and app.viewer.line_in_focus == 50
        await pilot.press("slash", *"LiNe 7", "enter")
        await settle(pilot)
        assert app.viewer.match_count == 0
        await pilot.press("slash", "up", "up")
        assert app.screen.query_one(Input).value == "line 50$", "up brings back earlier searches"
        await pilot.press("enter")
        await settle(pilot)
        assert app.viewer.match_count == 1
        current = app.viewer._content(50)
        assert any(segment.style and segment.style.bgcolor for segment in current), "the current match is marked"
        assert app.search_history == ["LINE 5$", "LiNe 7", "line 50$"]


async def test_wrapping_keeps_line_numbers_and_stays_on_the_window(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "wide.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        viewer = app.viewer
        width = viewer.scrollable_content_region.width
        assert viewer.window.bottom - viewer.window.top + 1 == viewer.scrollable_content_region.height
        await pilot.press("w")
        await settle(pilot)
        rows = [viewer.render_line(y).text for y in range(viewer.scrollable_content_region.height)]
        assert rows[0].startswith("  1▌ 001 abcdefghij") and rows[1].startswith("     hijabcdefghij")
        assert all(len(row) == width for row in rows)
        per_line = len(viewer._fold(1, width - viewer._gutter_width()))
        assert per_line > 1 and viewer.window.bottom == -(-len(rows) // per_line)
        assert len(viewer._windows) == 1, "only the window on screen was read"
        await pilot.press("G")
        assert viewer.window.bottom == 100
        await pilot.press("w")
        assert viewer.window.bottom - viewer.window.top + 1 == viewer.scrollable_content_region.height


async def test_line_numbers_stay_while_scrolling_sideways_and_the_end_of_line_key(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "wide.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        viewer = app.viewer
        await pilot.press("right", "right")
        assert viewer.render_line(0).text.startswith("  1▌ efghijabcd"), "the number stays, the text moves"
        await pilot.press("dollar_sign")
        assert viewer.render_line(0).text.rstrip().endswith("abcdefghij")
        assert viewer.scroll_x == 304 + 1 - (viewer.scrollable_content_region.width - viewer._gutter_width())
        await pilot.press("0")
        assert viewer.scroll_x == 0


async def test_percent_marks_and_going_back(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        viewer = app.viewer
        await pilot.press("colon", *"50%", "enter")
        await settle(pilot)
        assert viewer.window.top == 1 + sum(1 for n in range(1, 1001) if bytes_before(n + 1) <= 4446), "as less"
        top = viewer.window.top
        await pilot.press("m", "a", "g")
        assert viewer.window.top == 1
        await pilot.press("apostrophe", "a")
        assert viewer.window.top == top
        await pilot.press("apostrophe", "apostrophe")
        assert viewer.window.top == 1, "'' goes back to where the last jump left from"
        await pilot.press("apostrophe", "z")
        assert viewer.window.top == 1
        assert any("No mark z" in str(notice.message) for notice in app._notifications)


async def test_open_in_editor_at_the_line_in_view(workspace_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import nullcontext

    ran: list[list[str]] = []

    def editor(command: list[str], check: bool) -> None:
        ran.append(command)
        with open(workspace_dir / "big.txt", "a") as file:
            file.write("line 1001\n")

    monkeypatch.setenv("EDITOR", "nano -w")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setattr("agentpager.tui.app.subprocess.run", editor)
    app = make_app(workspace_dir, "big.txt")
    monkeypatch.setattr(app, "suspend", nullcontext)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.viewer.go_to_line(300)
        await pilot.press("v")
        await settle(pilot)
        assert ran == [["nano", "-w", "+300", os.path.join(app.workspace.root.path, "big.txt")]]
        assert app.viewer.line_count == 1001, "the file is read again after the editor"


async def test_a_file_changed_on_disk_is_shown_as_it_is_now(workspace_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file rewritten while it is open (by an agent, say), not followed: the viewer's own check
    sees it, and the panel runs its call again, though the window on screen stays the same."""
    monkeypatch.setattr(viewer_module, "CHECK_SECONDS", 0.1)  # not two seconds a look
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        (workspace_dir / "big.txt").write_text("".join(f"new {n}\n" for n in range(1, 11)))
        await until(pilot, lambda: app.viewer.line_count == 10, "the viewer's check saw the file shrink")
        await settle(pilot)
        assert app.viewer.line(1) == ("new 1", False)
        assert app.viewer.shading == Shading("big.txt", 1, 10)
        assert app.panel.outcome.result.text.startswith("[File: big.txt | Lines 1-10 of 10]\n")
        app.post_message(WorkspaceTree.DirectoryChosen("many", None))  # the panel lists, the viewer keeps the file
        await settle(pilot)
        (workspace_dir / "big.txt").unlink()
        await until(pilot, lambda: app.viewer.view is None, "the viewer's check saw the file go")
        await settle(pilot)
        assert app.viewer._message[0] == "The file changed or could not be read: File 'big.txt' does not exist."
        assert app.viewer.border_subtitle == "", "no count of the lines it had"


# -- the tree -------------------------------------------------------------------------------------


async def test_the_tree_reads_a_changed_directory_again(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        (workspace_dir / "new.txt").write_text("new\n")
        await pilot.press("r")
        await settle(pilot)
        assert "new.txt" in [str(node.label) for node in tree.root.children]
        assert str(tree.root.label).endswith(" 5 files")
        (workspace_dir / "new.txt").unlink()
        gone = lambda: "new.txt" not in [str(node.label) for node in tree.root.children]  # noqa: E731
        await until(pilot, gone, "the tree's own check (every two seconds, without a key) saw the file go")


async def test_checking_the_tree_never_writes_out_its_listings(
    workspace_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual names a worker given no description by the repr of its arguments, on the UI thread:
    the tree's check every two seconds wrote out every listing shown (100,000 names: 180 ms of stall)."""
    written: list[str] = []
    monkeypatch.setattr(tree_module.Listing, "__repr__", lambda listing: written.append("listing") or "Listing")
    app = make_app(workspace_dir)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert app.query_one(WorkspaceTree).root.children, "the tree was read"
    assert written == []


async def test_the_tree_pages_files_as_list_files_does(workspace_dir: Path) -> None:
    mixed = workspace_dir / "mixed"
    mixed.mkdir()
    for n in range(120):
        (mixed / f"d{n:03d}").mkdir()
    for n in range(130):
        (mixed / f"f{n:03d}.txt").write_text("x\n")
    app = make_app(workspace_dir)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        node = next(node for node in tree.root.children if str(node.label).startswith("mixed/"))
        node.expand()
        await settle(pilot)
        labels = [str(child.label) for child in node.children]
        assert labels[:2] == ["d000/", "d001/"] and labels[100] == "▶ directories 101-120 of 120"
        assert labels[101] == "f000.txt" and labels[-1] == "▶ files 101-130 of 130" and len(labels) == 202
        tree.select_node(node.children[-1])
        await settle(pilot)
        assert call_shown(app) == ("list_files", {"path": "mixed", "offset": 100, "limit": 100})
        assert app.panel.outcome.result.text.startswith("[Files 101-130 of 130]\nmixed/f100.txt\n")
        labels = [str(child.label) for child in node.children]
        assert labels[100:103] == ["▶ directories 101-120 of 120", "◀ files 1-100 of 130", "f100.txt"]
        assert tree.cursor_node is not None and str(tree.cursor_node.label) == "f100.txt", "the page's first file"


async def test_a_profile_marks_the_paths_it_refuses(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        tree = app.query_one(WorkspaceTree)
        obsidian = next(node for node in tree.root.children if str(node.label).startswith(".obsidian/"))
        assert "⊘" not in str(obsidian.label)
        await choose_profile(pilot, "vault")
        await settle(pilot)
        assert str(obsidian.label) == ".obsidian/ ⊘ refused"
        obsidian.expand()
        await settle(pilot)
        assert str(obsidian.children[0].label) == "app.json ⊘ refused"
        tree.select_node(obsidian.children[0])
        await settle(pilot)
        assert app.panel.outcome.result.text == "Error: Access to '.obsidian/app.json' is not allowed."
        assert app.viewer.shading is None, "an error covers nothing"


async def test_the_file_finder(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, FindFile)
        await pilot.press(*"f12")
        await settle(pilot)
        options = app.screen.query_one("OptionList")
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown[:3] == ["many/f120.txt", "many/f121.txt", "many/f122.txt"], "the tightest matches first"
        assert "many/f012.txt" in shown
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.viewer.path == "many/f121.txt" and app.viewer.has_focus


def test_fuzzy_ranking_prefers_the_file_name_and_tight_matches() -> None:
    paths = ["src/app/main.py", "apps/x/main.py", "docs/a_p_p.md", "app.py", "lib/mapper.py"]
    assert [path for path, _ in Candidates(paths).rank(fuzzy("app"), 10)] == [
        "app.py",
        "lib/mapper.py",
        "docs/a_p_p.md",
        "src/app/main.py",
        "apps/x/main.py",
    ]
    assert Candidates(["x/app.py"]).rank(fuzzy("a p"), 1) == [("x/app.py", [2, 3])]


def test_fuzzy_ranking_over_many_chunks_stops_at_enough_perfect_matches() -> None:
    paths = [f"d{n % 7}/entry{n:06d}.txt" for n in range(20_000)]
    candidates = Candidates(paths)
    assert len(candidates.chunks) == 20
    ranked = candidates.rank(fuzzy("entry0199"), 3)
    assert ranked == [
        ("d6/entry019900.txt", [3, 4, 5, 6, 7, 8, 9, 10, 11]),
        ("d0/entry019901.txt", [3, 4, 5, 6, 7, 8, 9, 10, 11]),
        ("d1/entry019902.txt", [3, 4, 5, 6, 7, 8, 9, 10, 11]),
    ]
    assert [path for path, _ in candidates.rank(fuzzy("y0199z"), 3)] == []


# -- empty and error states -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "first", "last"),
    [
        (None, START[0], "Press ? for every key."),
        (
            "empty.txt",
            "empty.txt is empty: 0 lines.",
            "Choose another file in the tree, or press o to find one by name.",
        ),
        (
            "image.png",
            "Binary files are not supported. File detected as image/png.",
            "Choose another file in the tree, or press o to find one by name.",
        ),
    ],
)
async def test_empty_and_error_states_say_what_to_do_next(
    workspace_dir: Path, path: str | None, first: str, last: str
) -> None:
    app = make_app(workspace_dir, path)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        assert app.viewer._message[0].startswith(first) and app.viewer._message[-1] == last


# -- messages -------------------------------------------------------------------------------------


def test_a_newer_progress_message_replaces_a_queued_one(workspace_dir: Path) -> None:
    workspace = Workspace(workspace_dir)
    view, other = workspace.open_view("big.txt"), workspace.open_view("wide.txt")
    assert FileViewer.Indexed(view, 10, False, 0.1).can_replace(FileViewer.Indexed(view, 20, False, 0.2))
    assert not FileViewer.Indexed(view, 10, False, 0.1).can_replace(FileViewer.Indexed(other, 20, False, 0.2))
    window = FileViewer.WindowChanged(None, None)  # type: ignore[arg-type]
    assert not window.can_replace(FileViewer.Indexed(view, 20, False, 0.2))


def test_the_readme_names_every_key_that_can_be_remapped() -> None:
    import re

    from agentpager.tui.app import remappable_keys

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    sentence = readme[readme.index("The keys that can be remapped are") : readme.index("(Textual's keymap")]
    assert set(re.findall(r"`([a-z_]+)`", sentence)) == set(remappable_keys())
