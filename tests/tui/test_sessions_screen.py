"""The session browser: listing, opening a session, and its screens at 80x24 and 200x55."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from pilot_helpers import settle, type_ahead, until
from textual.pilot import Pilot
from textual.widgets import Static

from agentpager import Workspace
from agentpager.sessions import SessionInfo
from agentpager.transcripts import open_transcript
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.found_list import FoundList
from agentpager.tui.screens import sessions as sessions_screen
from agentpager.tui.screens.sessions import SessionList, SessionsScreen
from agentpager.tui.screens.transcript import CallList, TranscriptScreen


def home_with_sessions(home: Path) -> Path:
    """``home`` with two Claude Code sessions."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    claude_session(home, "/home/me/shop", "s1", 3)
    claude_session(home, "/home/me/notes", "s2", 1, started="2026-01-02T10:00:00.000Z")
    return home


async def test_browse_and_open_a_session(root: Path, tmp_path: Path) -> None:
    home = home_with_sessions(tmp_path / "home")
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(200, 55)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        sessions = app.screen.query_one(SessionList)
        assert [line if isinstance(line, str) else line.session_id for line in sessions.lines] == [
            "/home/me/notes  (1 session)",
            "s2",
            "/home/me/shop  (1 session)",
            "s1",
        ]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 3
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)


async def test_the_browser_over_a_transcript(root: Path, tmp_path: Path) -> None:
    home = home_with_sessions(tmp_path / "home")
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # s2: one call
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 1
        await pilot.press("S")  # back to the browser it was opened from
        await settle(pilot)
        assert [type(screen).__name__ for screen in app.screen_stack] == ["WorkspaceScreen", "SessionsScreen"]
        await pilot.press("down", "enter")  # s1: three calls
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert len(app.screen.query_one(CallList).calls) == 3
    transcript = next(home.glob(".claude/projects/*/s2.jsonl"))
    app = AgentPagerApp.for_transcript(open_transcript(str(transcript)), str(root))
    app.sessions_home = str(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("S")  # a browser over the transcript the app started with
        await settle(pilot)
        await pilot.press("down", "enter")  # s1
        await settle(pilot)
        assert [type(screen).__name__ for screen in app.screen_stack] == [
            "WorkspaceScreen",
            "SessionsScreen",
            "TranscriptScreen",
        ]
        assert len(app.screen.query_one(CallList).calls) == 3
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)


async def test_counts_arrive_in_their_rows(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_cache: Path
) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    big = claude_session(tmp_path, "/home/me/shop", "big", 40, output="x" * 10_000)
    claude_session(tmp_path, "/home/me/shop", "small", 2, started="2026-01-02T10:00:00.000Z")
    go_on = threading.Event()
    update_calls = sessions_screen.update_calls

    def held(*arguments):  # noqa: ANN002, ANN202 - update_calls, once the test lets it
        go_on.wait()
        yield from update_calls(*arguments)

    monkeypatch.setattr(sessions_screen, "update_calls", held)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            listed = lambda: isinstance(app.screen, SessionsScreen) and app.screen.listed  # noqa: E731
            await until(pilot, listed, "the sessions were listed")
            rows = app.screen.query_one(SessionList)
            row = rows.lines[rows.positions[str(big)]]
            assert isinstance(row, SessionInfo) and (row.calls, row.counted) == (None, False)
            assert "reading calls: 2 to go" in str(app.screen.query_one("#about", Static).render())
        finally:
            go_on.set()
        await settle(pilot)
        row = rows.lines[rows.positions[str(big)]]
        assert isinstance(row, SessionInfo) and (row.calls, row.counted) == (40, True)
        assert "reading calls" not in str(app.screen.query_one("#about", Static).render())


async def test_the_first_rows_come_before_the_others(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_cache: Path
) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    for n in range(30):
        claude_session(tmp_path, "/home/me/shop", f"shop{n}", 1, started=f"2026-01-02T10:{n:02d}:00.000Z")
    claude_session(tmp_path, "/home/me/notes", "notes", 1)
    sessions_screen.list_sessions(str(tmp_path))
    go_on = threading.Event()
    indexed_sessions = sessions_screen.indexed_sessions

    def held(*arguments):  # noqa: ANN002, ANN202 - indexed_sessions, once the test lets it
        go_on.wait()
        return indexed_sessions(*arguments)

    monkeypatch.setattr(sessions_screen, "indexed_sessions", held)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            listed = lambda: isinstance(app.screen, SessionsScreen) and app.screen.listed  # noqa: E731
            await until(pilot, listed, "the first rows were listed")
            rows = app.screen.query_one(SessionList)
            assert [line for line in rows.lines if isinstance(line, str)] == ["/home/me/shop  (30 sessions)"]
            assert "31 sessions in 2 projects" in str(app.screen.query_one("#about", Static).render())
        finally:
            go_on.set()
        await settle(pilot)
        assert [line for line in rows.lines if isinstance(line, str)] == [
            "/home/me/shop  (30 sessions)",
            "/home/me/notes  (1 session)",
        ]
        assert "31 sessions in 2 projects" in str(app.screen.query_one("#about", Static).render())


def _browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentPagerApp:
    """The browser on a workspace the screens name: ``home/proj``, relative to the test's own temp dir
    made the current directory, so that they show the same text every run. (A session opened from the
    browser is replayed against the workspace's real path, which its screen names: written here
    relative to the current directory too.)"""
    monkeypatch.chdir(tmp_path)
    about = TranscriptScreen._about
    here = str(tmp_path.resolve()) + "/"
    monkeypatch.setattr(TranscriptScreen, "_about", lambda screen: about(screen).replace(here, ""))
    home = home_with_sessions(Path("home"))
    fixed = home / "proj"
    fixed.mkdir()
    return AgentPagerApp(Workspace(fixed), start_with_sessions=True, sessions_home=str(home))


def test_sessions_small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare) -> None:
    assert snap_compare(_browser(tmp_path, monkeypatch), terminal_size=(80, 24), run_before=settle)


def test_sessions_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare) -> None:
    assert snap_compare(_browser(tmp_path, monkeypatch), terminal_size=(200, 55), run_before=settle)


def test_context_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare) -> None:
    async def context(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        app = pilot.app
        app.screen.query_one("#outputs").active = "tab-context"
        await settle(pilot)

    assert snap_compare(_browser(tmp_path, monkeypatch), terminal_size=(80, 24), run_before=context)


def _reading_held_at(name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], threading.Event]:
    """Each session's calls read a batch of their own, in the search only (the browser's own reading
    is left out); the read of session ``name`` waits for the event. The sessions read, in order."""
    from agentpager.sessions_index import updating

    monkeypatch.setattr(sessions_screen, "update_calls", lambda *arguments: iter(()))
    monkeypatch.setattr(updating, "CHUNK_BYTES", 1)
    monkeypatch.setattr(updating, "WRITE_SECONDS", 0)
    go_on, read, read_sessions = threading.Event(), [], updating.read_sessions

    def held(tasks):  # noqa: ANN001, ANN202 - read_sessions, the one session once the test lets it
        names = [Path(task.path).stem for task in tasks]
        if name in names:
            go_on.wait()
        read.extend(names)
        return read_sessions(tasks)

    monkeypatch.setattr(updating, "read_sessions", held)
    return read, go_on


async def _searched_when_listed(pilot: Pilot, app: AgentPagerApp, text: str) -> SessionsScreen:
    """The browser once it lists the sessions, searching them for ``text``."""
    await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.listed, "listed")
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    await pilot.press("slash")
    await type_ahead(pilot, *text, "enter")
    return screen


def _found_rows(screen: SessionsScreen) -> list[str]:
    found = screen.query_one(FoundList)
    return [Path(line.session.path).stem for line in found.lines if not isinstance(line, str)]


async def test_a_search_shows_hits_while_the_calls_are_read(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hits of the sessions read come while the others are read (the search read every session
    first: 40 s before the first hit on 20,000); in the end in the list's order, the cursor kept."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    claude_session(tmp_path, "/home/me/shop", "s1", 1)
    sessions_screen.list_sessions(str(tmp_path))
    for _ in sessions_screen.update_calls(str(tmp_path)):
        pass
    for n in (2, 3, 4):
        claude_session(tmp_path, "/home/me/shop", f"s{n}", 1, started=f"2026-01-0{n}T10:00:00.000Z")
    read, go_on = _reading_held_at("s2", monkeypatch)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            screen = await _searched_when_listed(pilot, app, "export")
            await until(pilot, lambda: len(_found_rows(screen)) == 3, "the hits of the sessions read")
            assert _found_rows(screen) == ["s1", "s4", "s3"], "s1 was read before; s4 and s3 as they were read"
            about = str(screen.query_one("#about", Static).render())
            assert "3 matches in 3 sessions · searching… · reading calls: 1 sessions to go" in about
            await pilot.press("down")
        finally:
            go_on.set()
        await settle(pilot)
        assert read == ["s4", "s3", "s2"]
        assert _found_rows(screen) == ["s4", "s3", "s2", "s1"], "newest first, as the list"
        chosen = screen.query_one(FoundList).chosen
        assert chosen is not None and Path(chosen.session.path).stem == "s4", "the cursor stays on its row"
        about = str(screen.query_one("#about", Static).render())
        assert "4 matches in 4 sessions · Enter opens one" in about


async def test_escape_stops_a_search_and_its_reading(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    for n in (1, 2, 3, 4):
        claude_session(tmp_path, "/home/me/shop", f"s{n}", 1, started=f"2026-01-0{n}T10:00:00.000Z")
    read, go_on = _reading_held_at("s3", monkeypatch)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            screen = await _searched_when_listed(pilot, app, "export")
            await until(pilot, lambda: _found_rows(screen) == ["s4"], "the hit of the first session read")
            await pilot.press("escape")
        finally:
            go_on.set()
        await settle(pilot)
        assert screen.found is None and app.screen is screen
        assert read == ["s4", "s3"], "the reading stopped with the search"


@pytest.mark.parametrize("escaped", ["after the search", "while the search lists"])
async def test_a_search_begun_before_the_list_came_leaves_the_list_behind_it(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, escaped: str
) -> None:
    """A search cancels the listing (one worker at a time): Escape then showed "No ... sessions were
    found" over a home of 20,000 when the search began before the first listing ended."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    for n in (1, 2):
        claude_session(tmp_path, "/home/me/shop", f"s{n}", 1, started=f"2026-01-0{n}T10:00:00.000Z")
    listing, go_on = [], threading.Event()
    held_listings = 1 if escaped == "after the search" else 2

    def holding(list_them):  # noqa: ANN001, ANN202 - the first listings wait
        def held(*arguments, **keywords):  # noqa: ANN002, ANN003, ANN202
            listing.append(arguments)
            if len(listing) <= held_listings:
                go_on.wait()
            return list_them(*arguments, **keywords)

        return held

    monkeypatch.setattr(sessions_screen, "list_sessions", holding(sessions_screen.list_sessions))
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and listing, "listing")
            screen = app.screen
            assert isinstance(screen, SessionsScreen) and not screen.listed
            await pilot.press("slash", *"export", "enter")
            if escaped == "after the search":
                await until(pilot, lambda: screen.found is not None and not screen.searching, "the search done")
            else:
                await until(pilot, lambda: len(listing) == 2, "the search listing")
            await pilot.press("escape")
        finally:
            go_on.set()
        await until(pilot, lambda: len(screen.listed) == 2, "the list")
        await settle(pilot)
        assert screen.found is None
        assert [Path(info.path).stem for info in screen.listed] == ["s2", "s1"]
        assert "2 sessions in 1 project" in str(screen.query_one("#about", Static).render())


async def test_a_call_opened_from_a_session_of_the_browser_shows_in_the_workspace(root: Path, tmp_path: Path) -> None:
    """``o`` opens the call's window in the viewer and ``w`` goes back to the workspace, from a transcript
    opened from the browser too (they went back to the browser); Escape goes back to the browser."""
    home = home_with_sessions(tmp_path / "home")
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("o", "w"):
            await pilot.press("S", "down", "down", "down", "enter")  # s1: three Read calls
            await settle(pilot)
            assert isinstance(app.screen, TranscriptScreen)
            await pilot.press(key)
            await settle(pilot)
            assert [type(screen).__name__ for screen in app.screen_stack] == ["WorkspaceScreen"], key
        assert app.panel.pinned and app.panel.outcome is not None and app.panel.outcome.tool == "Read"
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen), "t comes back to the transcript"
        await pilot.press("S", "down", "down", "down", "enter", "escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)


async def test_filters_alone_list_the_sessions_they_let_through(root: Path, tmp_path: Path) -> None:
    """``since:`` and ``agent:`` without a text list the sessions, each by its first prompt (they were
    refused: "Search for some text"); Enter opens one."""
    home = home_with_sessions(tmp_path / "home")
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(home))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _searched_when_listed(pilot, app, "agent:claude-code since:2026-01-02")
        await settle(pilot)
        assert _found_rows(screen) == ["s2"], "s1 ended before"
        found = screen.query_one(FoundList)
        assert found.chosen is not None and found.chosen.kind == "prompt" and found.chosen.excerpt
        await pilot.press("escape", "slash")
        await type_ahead(pilot, *"agent:codex", "enter")
        await settle(pilot)
        assert _found_rows(screen) == []
        await pilot.press("escape", "slash")
        await type_ahead(pilot, *"tool:Read", "enter")
        await settle(pilot)
        assert _found_rows(screen) == ["s2", "s1"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
