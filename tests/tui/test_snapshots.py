"""Snapshots of the main screens (update with ``pytest --snapshot-update`` and look at the SVGs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import settle
from samples import png_bytes
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp

SIZE = (200, 55)
SIZES = [(80, 24), (120, 40), (200, 55)]


def make_app(root: Path, open_path: str | None = None, max_output_chars: int | None = None) -> AgentPagerApp:
    for name, text in (
        ("big.txt", "".join(f"line {n}\n" for n in range(1, 1001))),
        ("notes.md", "# Notes\n\n\tindented\x0cpage\n"),
        ("wide.log", "".join(f"{n:03d} GET /api/orders?page={n} " + "x" * (60 + n * 3) + "\n" for n in range(1, 120))),
        ("empty.txt", ""),
    ):
        (root / name).write_text(text)
    (root / "many").mkdir()
    for n in range(130):
        (root / "many" / f"f{n:03d}.txt").write_text("x\n")
    (root / "image.png").write_bytes(png_bytes())
    return AgentPagerApp(Workspace(root, max_output_chars=max_output_chars), open_path)


async def steady(pilot: Pilot) -> None:
    """Workers done, cursors still: what is on screen no longer depends on timing."""
    await settle(pilot)
    for widget in pilot.app.query(Input).results():
        widget.cursor_blink = False
    for widget in pilot.app.query(TextArea).results():
        widget.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_file_open(root: Path, snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(root, "big.txt"), terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_start_screen(root: Path, snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(root), terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_editing_the_call(root: Path, snap_compare, size: tuple[int, int]) -> None:
    async def edit(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("e", *"450")
        await steady(pilot)

    assert snap_compare(make_app(root, "big.txt"), terminal_size=size, run_before=edit)


def test_the_guard_cut_and_a_search_wrapped(root: Path, snap_compare) -> None:
    async def look(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("w", "p", "slash", *"page=1.", "enter")
        await steady(pilot)

    app = make_app(root, "wide.log", max_output_chars=3000)
    assert snap_compare(app, terminal_size=(120, 40), run_before=look)


def test_empty_file_small(root: Path, snap_compare) -> None:
    assert snap_compare(make_app(root, "empty.txt"), terminal_size=(80, 24), run_before=steady)


def test_after_going_to_line_450(root: Path, snap_compare) -> None:
    async def go(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("colon", *"450", "enter")
        await steady(pilot)

    assert snap_compare(make_app(root, "big.txt"), terminal_size=SIZE, run_before=go)


def test_control_characters_and_tabs(root: Path, snap_compare) -> None:
    assert snap_compare(make_app(root, "notes.md"), terminal_size=SIZE, run_before=steady)


def test_binary_file(root: Path, snap_compare) -> None:
    assert snap_compare(make_app(root, "image.png"), terminal_size=SIZE, run_before=steady)


def test_paged_directory_and_its_listing(root: Path, snap_compare) -> None:
    async def expand(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("down", "enter")
        await steady(pilot)

    assert snap_compare(make_app(root), terminal_size=SIZE, run_before=expand)


@pytest.mark.parametrize("size", [(80, 24), (200, 55)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_help(root: Path, snap_compare, size: tuple[int, int]) -> None:
    async def help(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("question_mark")
        await steady(pilot)

    assert snap_compare(make_app(root, "big.txt"), terminal_size=size, run_before=help)


def shown_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``proj``, relative to the test's own temp dir made the current directory: a screen that names
    a transcript's path or a root shows the same text every run."""
    monkeypatch.chdir(tmp_path)
    root = Path("proj")
    root.mkdir()
    return root


def test_transcript(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_transcript_screen import session

    from agentpager.transcripts import open_transcript

    root = shown_root(tmp_path, monkeypatch)
    app = AgentPagerApp.for_transcript(open_transcript(str(session(root))), str(root))

    async def second_call(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("down")
        await steady(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=second_call)


def _changed_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentPagerApp:
    """A Claude Code read whose file changed since: one line longer than half a wide terminal."""
    from test_transcript_screen import session

    from agentpager.transcripts import open_transcript

    root = shown_root(tmp_path, monkeypatch)
    transcript = open_transcript(str(session(root)))
    lines = (root / "big.txt").read_text().split("\n")
    lines[404] = "line 405 became a line much longer than it was, " + "so that it wraps within its side " * 3
    (root / "big.txt").write_text("\n".join(lines))
    return AgentPagerApp.for_transcript(transcript, str(root))


async def _difference_tab(pilot: Pilot) -> None:
    await steady(pilot)
    pilot.app.screen.query_one("#outputs").active = "tab-difference"
    await steady(pilot)


def test_difference_side_by_side(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _changed_read(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(200, 55), run_before=_difference_tab)


def test_difference_unified_at_80_columns(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _changed_read(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_difference_tab)


@pytest.mark.parametrize("size", [(80, 24), (200, 55)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_call_list_with_deep_paths(
    snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_80x24 import deep_session

    from agentpager.transcripts import open_transcript

    root = shown_root(tmp_path, monkeypatch)
    deep_session(tmp_path / root)  # its records name the files by absolute paths, as an agent's do
    app = AgentPagerApp.for_transcript(open_transcript(str(root / "session.jsonl")), str(root))
    assert snap_compare(app, terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", [(80, 24), (200, 55)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_context_tab(snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_context_view import transcript_with_a_compaction

    root = shown_root(tmp_path, monkeypatch)
    app = AgentPagerApp.for_transcript(transcript_with_a_compaction(root), str(root))

    async def context(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("left")  # the first tab goes round to the last: the context
        await steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=context)


def test_narrow_tree_marks_big_directories(root: Path, snap_compare) -> None:
    app = make_app(root)
    (root / "many" / "deeper_folder").mkdir()
    for n in range(25):
        (root / "many" / "deeper_folder" / f"g{n:02d}.txt").write_text("x\n")

    async def expand(pilot: Pilot) -> None:
        await steady(pilot)
        await pilot.press("down", "enter", "down", "enter")
        await steady(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=expand)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_editing_a_codex_call(root: Path, snap_compare, size: tuple[int, int]) -> None:
    app = make_app(root, "big.txt")

    async def edit(pilot: Pilot) -> None:
        await steady(pilot)
        pilot.app.panel.load_call("codex", "exec_command", {"cmd": "sed -n 1,20p big.txt", "yield_time_ms": 500})
        await steady(pilot)
        await pilot.press("e")
        await steady(pilot)

    assert snap_compare(app, terminal_size=size, run_before=edit)
