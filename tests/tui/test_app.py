"""The TUI driven with Pilot: tree paging, viewer windows, jumps, search, the panel, copying, failures."""

from __future__ import annotations

import html
import json
import os
import re
import threading
from pathlib import Path

import pytest
from pilot_helpers import choose_profile, settle, type_ahead, until
from samples import pdf_bytes, png_bytes
from textual.widgets import Input, OptionList, Select, TextArea

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.find_file import FindFile
from agentpager.tui.tool_panel import ToolPanel
from agentpager.tui.tree import PageLink, WorkspaceTree

SIZE = (200, 55)


@pytest.fixture
def workspace_dir(root: Path) -> Path:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)))
    many = root / "many"
    many.mkdir()
    for n in range(250):
        (many / f"f{n:03d}.txt").write_text("x\n")
    (root / "image.png").write_bytes(png_bytes())
    (root / "broken.pdf").write_bytes(pdf_bytes(["Hello"])[:150])
    return root


def make_app(root: Path, open_path: str | None = None, profile: str = "qq") -> AgentPagerApp:
    app = AgentPagerApp(Workspace(root, profile), open_path)
    app.animation_level = "none"
    return app


def output_text(app: AgentPagerApp) -> str:
    outcome = app.panel.outcome
    assert outcome is not None
    return outcome.result.text


def screen_text(app: AgentPagerApp) -> str:
    """What is on the screen, as plain text."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def call_shown(app: AgentPagerApp) -> tuple[str, dict]:
    outcome = app.panel.outcome
    assert outcome is not None
    return outcome.tool, outcome.arguments


async def test_opening_a_file_shows_line_1_and_the_first_window(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        viewer = app.viewer
        assert viewer.line_count == 1000 and viewer.indexed
        assert viewer.window.top == 1
        assert output_text(app).startswith("[File: big.txt | Lines 1-200 of 1000]\n")
        assert call_shown(app) == ("read_file", {"path": "big.txt", "start_line": 1})


async def test_colon_jump_makes_the_line_the_top_line(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"450", "enter")
        await settle(pilot)
        assert app.viewer.window.top == 450
        assert app.viewer.line(450) == ("line 450", False)
        assert output_text(app).startswith("[File: big.txt | Lines 450-649 of 1000]\n")
        assert "[File: big.txt | Lines 450-649 of 1000]" in screen_text(app), "the panel shows the new output"
        await pilot.press("colon", *"abc", "enter")
        await settle(pilot)
        assert isinstance(app.screen.query_one(Input), Input), "a bad line number keeps the prompt open"
        await pilot.press("escape")


async def test_keys_typed_ahead_of_a_prompt_reach_it(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_ahead(pilot, "colon", *"1000", "enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0], "Enter closed the prompt"
        assert app.viewer.window.bottom == 1000, "the jump to line 1000 shows the end of the file"
        await type_ahead(pilot, "slash", *r"line 5\d7$", "enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert app.viewer.match_count == 10 and app.viewer.line_in_focus == 507
        await type_ahead(pilot, "m", "z")
        await settle(pilot)
        assert app.viewer.marks == {"z": ("big.txt", app.viewer.window.top)}, "m's prompt took the z"


async def test_the_file_finder_opens_what_was_typed_ahead_of_its_listing(workspace_dir: Path, monkeypatch) -> None:
    listed = threading.Event()
    files = Workspace.files

    def slow_files(workspace: Workspace) -> list[str]:
        listed.wait()
        return files(workspace)

    monkeypatch.setattr(Workspace, "files", slow_files)
    app = make_app(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        try:
            await type_ahead(pilot, "o", *"bigtxt", "enter")
            typed = lambda: isinstance(app.screen, FindFile) and app.screen.query_one(Input).value == "bigtxt"  # noqa: E731
            await until(pilot, typed, "the keys typed ahead reached the finder, still listing")
        finally:
            listed.set()
        await settle(pilot)
        assert app.viewer.path == "big.txt"


async def test_viewer_keys_scroll_without_animation_and_fetch_windows_lazily(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        viewer = app.viewer
        height = viewer.scrollable_content_region.height
        await pilot.press("pagedown")
        assert viewer.window.top == 1 + height
        await pilot.press("down", "down")
        assert viewer.window.top == 3 + height
        await pilot.press("G")
        await settle(pilot)
        assert viewer.window.bottom == 1000
        assert output_text(app).endswith("[File read completed. Total lines: 1000]")
        await pilot.press("g")
        assert viewer.window.top == 1
        assert len(viewer._windows) <= 3, "only the windows shown were fetched"


async def test_search_counts_matches_and_n_moves(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *r"line \d*7$", "enter")
        await settle(pilot)
        viewer = app.viewer
        assert viewer.match_count == 100
        assert viewer.line_in_focus == 7 and viewer.window.top == 1
        assert "match 1/100 at line 7" in viewer.border_subtitle
        await pilot.press("n")
        assert viewer.line_in_focus == 17
        await pilot.press("colon", *"500", "enter", "n")
        half = viewer.scrollable_content_region.height // 2
        assert viewer.line_in_focus == 507 and viewer.window.top == 507 - half, "the match is in the middle"
        await pilot.press("g", "N")
        assert "match 100/100 at line 997" in viewer.border_subtitle, "N wraps around to the last match"
        assert viewer.window.bottom == 1000, "as close to the middle as the end of the file allows"
        await pilot.press("slash", "(", "enter")
        assert "Invalid regex" in str(app.screen.query_one("#problem").render())


def bytes_before(line: int) -> int:
    return sum(len(f"line {n}\n") for n in range(1, line))


@pytest.mark.parametrize("profile", ["qq", "crush", "vault", "forge"])
async def test_the_panel_follows_the_viewer(workspace_dir: Path, profile: str) -> None:
    app = make_app(workspace_dir, "big.txt", profile)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.viewer.go_to_line(450)
        await settle(pilot)
        window = app.viewer.window
        assert window.top == 450 and window.bottom == 450 + app.viewer.scrollable_content_region.height - 1
        expected = {
            "qq": ("read_file", {"path": "big.txt", "start_line": 450}),
            "crush": ("file_read", {"filename": "big.txt", "start_line": 450, "end_line": window.bottom}),
            "vault": ("read_file", {"path": "big.txt", "offset": bytes_before(450)}),  # ASCII: chars = bytes
            "forge": (
                "fs_read",
                {"path": "big.txt", "start_byte": bytes_before(450), "end_byte": bytes_before(window.bottom + 1)},
            ),
        }[profile]
        assert call_shown(app) == expected
        assert not app.panel.outcome.result.is_error


async def test_the_profile_chooser_lists_every_profile_when_opened(workspace_dir: Path) -> None:
    """It shows only the chosen profile until it is first focused (the app starts without every
    agent's tools), then offers them all, and a click and a choice switch the profile."""
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chooser = app.panel.query_one("#profile", Select)
        choices = chooser.query_one(OptionList)
        assert [str(choices.get_option_at_index(n).prompt) for n in range(choices.option_count)] == ["qq"]
        await pilot.click(chooser)
        await settle(pilot)
        offered = [str(choices.get_option_at_index(n).prompt) for n in range(choices.option_count)]
        assert offered == list(Workspace.profile_names())
        assert chooser.expanded
        choices.highlighted = offered.index("vault")
        await pilot.press("enter")
        await settle(pilot)
        assert chooser.value == "vault"
        assert call_shown(app) == ("read_file", {"path": "big.txt", "offset": 0})


async def test_switching_profile_follows_with_the_new_profile(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await choose_profile(pilot, "vault")
        await settle(pilot)
        assert call_shown(app) == ("read_file", {"path": "big.txt", "offset": 0})
        assert output_text(app).endswith("Use offset=4000 to read more.]")


async def test_choosing_profiles_one_after_another_never_pins_the_call(workspace_dir: Path) -> None:
    """The panel sets a form's fields twice for a profile (its read call, then the viewer's window)
    before their first change comes back: the first is not an edit (choosing codex pinned the call)."""
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for profile in ("claude-code@2.0", "codex", "gemini-cli", "qq"):
            await choose_profile(pilot, profile)
            await settle(pilot)
            assert not app.panel.pinned, profile


async def test_editing_an_argument_pins_the_call_and_moves_the_viewer(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        field = app.panel._fields["start_line"]
        field.focus()
        field.value = "300"
        await settle(pilot)
        assert app.panel.pinned
        assert app.viewer.window.top == 300
        assert call_shown(app) == ("read_file", {"path": "big.txt", "start_line": 300})
        app.viewer.go_to_line(10)
        await settle(pilot)
        assert call_shown(app)[1]["start_line"] == 300, "a pinned call stays"
        field.value = "0"
        await settle(pilot)
        assert str(app.panel._errors["start_line"].render()) == "must be >= 1"
        assert call_shown(app)[1]["start_line"] == 300, "nothing is sent until valid"
        field.value = "x"
        await settle(pilot)
        assert "expected integer" in str(app.panel._errors["start_line"].render())
        app.viewer.focus()
        await pilot.press("p")
        await settle(pilot)
        assert not app.panel.pinned
        assert call_shown(app)[1]["start_line"] == 10, "unpinned, it follows the viewer again"


async def expanded(app: AgentPagerApp, pilot, label: str):
    """The tree's top-level node with ``label``, expanded and loaded."""
    await settle(pilot)
    node = next(node for node in app.query_one(WorkspaceTree).root.children if str(node.label) == label)
    node.expand()
    await settle(pilot)
    return node


async def test_tree_pages_a_big_directory_and_shows_its_listing(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        many = await expanded(app, pilot, "many/")
        tree = app.query_one(WorkspaceTree)
        assert str(many.label).startswith("⚠ ") and "250 files" in str(many.label)
        labels = [str(child.label) for child in many.children]
        assert len(labels) == 101 and labels[0] == "f000.txt" and labels[-1] == "▶ files 101-200 of 250"
        tree.select_node(many)
        await settle(pilot)
        assert call_shown(app) == ("list_files", {"path": "many"}), "the call an agent makes first"
        assert output_text(app).startswith("Warning: 250 files match pattern '*' in directory 'many'.\n")
        tree.select_node(many.children[-1])
        await settle(pilot)
        labels = [str(child.label) for child in many.children]
        assert (
            labels[0] == "◀ files 1-100 of 250" and labels[1] == "f100.txt" and labels[-1] == "▶ files 201-250 of 250"
        )
        assert isinstance(many.children[-1].data, PageLink)
        assert call_shown(app) == ("list_files", {"path": "many", "offset": 100, "limit": 100})
        assert output_text(app).endswith("[More files available. Use offset=200 to continue.]")


async def test_copy_output_call_and_pairs(workspace_dir: Path, monkeypatch) -> None:
    monkeypatch.setattr("agentpager.tui.app.system_clipboard", lambda: None)
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == output_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert json.loads(app.clipboard) == {"name": "read_file", "arguments": {"path": "big.txt", "start_line": 1}}
        await pilot.press("C")
        await settle(pilot)
        assistant, tool = json.loads(app.clipboard)
        assert assistant["tool_calls"][0]["function"]["name"] == "read_file"
        assert tool["content"] == output_text(app)
        app.panel.query_one("#pair", Select).value = "anthropic"
        await pilot.press("C")
        await settle(pilot)
        assistant, user = json.loads(app.clipboard)
        assert assistant["content"][0]["input"] == {"path": "big.txt", "start_line": 1}
        assert user["content"][0]["content"] == output_text(app)


async def test_a_name_that_is_not_utf8_is_shown_printable_and_copied_as_json(root: Path, monkeypatch) -> None:
    monkeypatch.setattr("agentpager.tui.app.system_clipboard", lambda: None)
    name = os.fsdecode(b"\xff\xfe_bad.txt")
    (root / name).write_text("bad name content\n")
    app = make_app(root, name)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [str(node.label) for node in app.query_one(WorkspaceTree).root.children] == ["\ufffd\ufffd_bad.txt"]
        assert app.viewer.border_title == "\ufffd\ufffd_bad.txt"
        assert output_text(app).startswith("[File: \ufffd\ufffd_bad.txt | Lines 1-1 of 1]\n")
        await pilot.press("y")
        await settle(pilot)
        assert "\\udcff\\udcfe_bad.txt" in app.clipboard, "the call as JSON that reads back the same name"
        assert json.loads(app.clipboard) == {"name": "read_file", "arguments": {"path": name, "start_line": 1}}
        await pilot.press("C")
        await settle(pilot)
        assistant, tool = json.loads(app.clipboard)
        assert json.loads(assistant["tool_calls"][0]["function"]["arguments"])["path"] == name


async def test_names_with_control_characters_or_markup_are_shown_as_they_are(root: Path) -> None:
    """A name's control characters never reach the terminal (an escape sequence in a file name
    coloured the screen, and every row after it was misplaced): in the tree, the viewer's title and
    messages, the call's form and the file finder, each is its control picture, on one row;
    brackets are no markup."""
    for name in ("esc\x1b[31mred.txt", "new\nline.txt", "tab\there.txt", "[b]bold.txt"):
        (root / name).write_text("x\n")
    app = make_app(root, "esc\x1b[31mred.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        labels = {str(node.label) for node in app.query_one(WorkspaceTree).root.children}
        assert labels == {"esc␛[31mred.txt", "new␊line.txt", "tab␉here.txt", "[b]bold.txt"}
        assert "╭─ esc␛[31mred.txt ─" in screen_text(app)
        assert "\x1b" not in screen_text(app), "the call's form shows the name's path argument so too"
        assert app.panel._fields["path"].value == "esc\x1b[31mred.txt", "and keeps it exact"
        app.viewer.open_file("[b]bold.txt")
        await settle(pilot)
        assert "╭─ [b]bold.txt ─" in screen_text(app)
        (root / "new\nline.txt").unlink()
        app.viewer.open_file("new\nline.txt")
        await settle(pilot)
        assert "File 'new␊line.txt' does not exist." in screen_text(app)
        await pilot.press("o", *"tabhere")
        await settle(pilot)
        assert "tab␉here.txt" in screen_text(app)
        assert "\x1b" not in screen_text(app)


async def test_copy_uses_pyperclip_when_it_works(workspace_dir: Path, monkeypatch) -> None:
    copied: list[str] = []
    monkeypatch.setattr("agentpager.tui.app.system_clipboard", lambda: "xclip")
    monkeypatch.setattr("agentpager.tui.app.copy_with_pyperclip", lambda text: copied.append(text) or True)
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert copied == [output_text(app)]
        assert app.clipboard == "", "the terminal was not asked"


async def test_binary_file_shows_the_agents_error_with_type_and_size(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "image.png")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.viewer._message
        assert shown[0].startswith("Binary files are not supported. File detected as image/png.")
        assert "Detected type: image/png" in shown and f"Size: {len(png_bytes()):,} bytes" in shown
        assert output_text(app) == "Error: " + shown[0]


async def test_document_conversion_error(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "broken.pdf")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.viewer._message[0].startswith("Could not convert 'broken.pdf' to text: the PDF is damaged")
        assert "Detected type: application/pdf" in app.viewer._message
        assert app.panel.outcome.result.is_error


async def test_deleted_file(workspace_dir: Path) -> None:
    app = make_app(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        (workspace_dir / "big.txt").unlink()
        app.query_one(WorkspaceTree).post_message(WorkspaceTree.FileChosen("big.txt"))
        await settle(pilot)
        assert app.viewer._message[0] == "File 'big.txt' does not exist."
        assert output_text(app) == "Error: File 'big.txt' does not exist."


def test_permission_denied(public_root: Path, unprivileged) -> None:
    (public_root / "readable.txt").write_text("yes\n")
    (public_root / "secret.txt").write_text("no\n")
    (public_root / "secret.txt").chmod(0)

    def shown(path: str) -> str:
        import asyncio

        async def scenario() -> str:
            app = make_app(public_root, path)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                return (app.viewer._message or [""])[0] + "|" + output_text(app)

        return asyncio.run(scenario())

    assert shown("readable.txt").endswith("|" + Workspace(public_root).call("read_file", {"path": "readable.txt"}).text)
    assert unprivileged(lambda: shown("secret.txt")) == (
        "Permission denied: 'secret.txt'.|Error: Permission denied: 'secret.txt'."
    )


async def test_help_and_command_palette_list_the_actions(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert "go to a line" in app.screen.query_one("Markdown").source
        await pilot.press("escape")
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {
            "Go to line",
            "Search",
            "Copy output",
            "Copy call",
            "Copy call and result",
            "Follow the file",
            "Pin or follow",
            "Help",
        } <= titles
        await pilot.press("q")
    assert app.return_code == 0 or app.return_code is None


async def test_following_a_growing_file(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f")
        assert app.viewer.following
        with open(workspace_dir / "big.txt", "a") as log:
            log.write("".join(f"line {n}\n" for n in range(1001, 1101)))
        await until(pilot, lambda: app.viewer.line_count == 1100, "the viewer saw the new lines")
        await settle(pilot)
        assert app.viewer.line_count == 1100
        assert app.viewer.window.bottom == 1100
        await pilot.press("f")
        assert not app.viewer.following


async def test_narrow_terminal_moves_the_panel_under_the_viewer(workspace_dir: Path) -> None:
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        panel = app.query_one(ToolPanel)
        assert app.screen.has_class("-narrow")
        assert panel.region.y > app.viewer.region.y
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one(ToolPanel).region.width >= 60


async def test_output_view_shows_the_exact_text(workspace_dir: Path) -> None:
    (workspace_dir / "ctl.txt").write_bytes(b"a\tb\x0cc\n")
    app = make_app(workspace_dir, "ctl.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "a\tb\x0cc" in output_text(app), "the outcome holds the exact text"
        assert "a   b␌c" in app.panel.query_one("#output", TextArea).text, "the view shows it visibly"
        assert app.viewer.line(1) == ("a\tb\x0cc", False)
        os.utime(workspace_dir / "ctl.txt")


async def test_escape_cancels_a_slow_document_conversion(workspace_dir: Path, monkeypatch) -> None:
    from agentpager.engine import content
    from agentpager.engine.lineindex import Cancelled

    def slow_conversion(fd, document_type, cancel, limits) -> str:
        cancel.wait(10)
        raise Cancelled()

    monkeypatch.setattr(content, "convert_document", slow_conversion)
    (workspace_dir / "slow.pdf").write_bytes(pdf_bytes(["never shown"]))
    app = make_app(workspace_dir, "slow.pdf")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "converting" in app.viewer.status, "the conversion started")
        assert "converting to Markdown" in app.viewer.status and "Escape cancels" in app.viewer.status
        app.viewer.focus()
        await pilot.press("escape")
        await settle(pilot)
        assert app.viewer._message[0] == "Conversion cancelled."


def test_unreadable_and_vanished_directories_in_the_tree(public_root: Path, unprivileged) -> None:
    (public_root / "locked").mkdir(mode=0)
    workspace = Workspace(public_root)
    assert unprivileged(lambda: workspace.read_directory("locked").error) == "unreadable"
    assert workspace.read_directory("gone").error == "Directory 'gone' does not exist."


async def test_the_tree_counts_the_files_list_files_lists(root: Path, tmp_path: Path) -> None:
    """A FIFO, a broken symlink and symlinks out of the workspace are shown but not counted."""
    mixed = root / "mixed"
    mixed.mkdir()
    for n in range(19):
        (mixed / f"f{n:02d}.txt").write_text("x\n")
    os.mkfifo(mixed / "pipe")
    (mixed / "broken").symlink_to("nowhere")
    (tmp_path / "secret.txt").write_text("secret\n")
    (mixed / "out.txt").symlink_to(tmp_path / "secret.txt")
    (mixed / "outdir").symlink_to(tmp_path)
    (mixed / "alias.txt").symlink_to("f00.txt")
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        node = await expanded(app, pilot, "mixed/")
        assert str(node.label) == "mixed/ 20 files", "no warning: list_files lists them"
        labels = [str(child.label) for child in node.children]
        files = ["alias.txt"] + [f"f{n:02d}.txt" for n in range(19)]
        assert labels[:20] == files
        assert labels[20:] == [
            "broken",
            "out.txt → outside the workspace",
            "outdir → outside the workspace",
            "pipe",
        ]
        assert Workspace(root).call("list_files", {"path": "mixed"}).text == "\n".join(f"mixed/{f}" for f in files)
        app.query_one(WorkspaceTree).select_node(node)
        await settle(pilot)
        assert call_shown(app) == ("list_files", {"path": "mixed"})
        assert output_text(app) == "\n".join(f"mixed/{f}" for f in files), "the files the tree counts"


async def test_a_failing_background_job_is_reported_not_fatal(workspace_dir: Path, monkeypatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("agentpager.workspace.Workspace.read_call", broken)
    app = make_app(workspace_dir, "big.txt")
    async with app.run_test(size=SIZE) as pilot:
        reported = lambda: any("simulated bug" in str(notice.message) for notice in app._notifications)  # noqa: E731
        await until(pilot, reported, "the failure was reported")
        assert app.is_running


async def test_a_search_re_gives_up_on_says_why(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A backreference runs in ``re``, in a child with a time limit: past it the search says so
    (it stayed at "searching…" when the error could not be raised)."""
    monkeypatch.setenv("AGENTPAGER_REGEX_SECONDS", "0.5")
    (root / "a.txt").write_text("a" * 5000 + "\n")
    app = make_app(root, "a.txt")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *r"(a*)*\1b", "enter")
        await settle(pilot)
        assert app.viewer.border_subtitle.endswith(
            r"/(a*)*\1b/: Pattern '(a*)*\1b' took longer than 0.5 s to match; use a simpler one."
        )
