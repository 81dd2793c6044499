"""The session browser's first listing on an empty index: rows come as the sessions are summed up (on
20,000 sessions the list was empty for 8 s), and the list ends as it did."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from pilot_helpers import settle, until
from textual.widgets import Static

from agentpager import Workspace
from agentpager.sessions_index import listing
from agentpager.sessions_index.store import IndexStore
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens import sessions as sessions_screen
from agentpager.tui.screens.sessions import SessionList, SessionsScreen

NEWEST_FIRST = ["s5", "s4", "s3", "s2", "s1", "s0"]


def cold_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """``home`` with six sessions in two projects, summed up two at a time, the oldest first (the
    files as found, by path); the second batch's write waits for the event (the first is written)."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from test_sessions import claude_session

    for n in range(6):
        project = "/home/me/shop" if n % 2 else "/home/me/notes"
        claude_session(home, project, f"s{n}", 1, started=f"2026-01-0{n + 1}T10:00:00.000Z")
    monkeypatch.setattr(listing, "WRITE_BATCH", 2)
    session_files = listing.session_files
    by_path = lambda home: sorted(session_files(home), key=lambda found: found[0].path)  # noqa: E731
    monkeypatch.setattr(listing, "session_files", by_path)
    go_on, writes, save_summaries = threading.Event(), [], IndexStore.save_summaries

    def held(store, home, summaries):  # noqa: ANN001, ANN202 - save_summaries, the second once the test lets it
        writes.append(summaries)
        if len(writes) == 2:
            go_on.wait()
        save_summaries(store, home, summaries)

    monkeypatch.setattr(IndexStore, "save_summaries", held)
    return go_on


def about(screen: SessionsScreen) -> str:
    return str(screen.query_one("#about", Static).render())


def shown(screen: SessionsScreen) -> list[str]:
    return [Path(line.path).stem for line in screen.query_one(SessionList).lines if not isinstance(line, str)]


async def filling(pilot, app: AgentPagerApp) -> SessionsScreen:  # noqa: ANN001 - a Pilot
    """The browser once it shows the first batch of sessions summed up."""
    await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.listed, "the first rows")
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


@pytest.mark.parametrize("moved", [False, True])
async def test_rows_come_as_the_sessions_are_summed_up(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moved: bool
) -> None:
    go_on = cold_home(tmp_path, monkeypatch)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            screen = await filling(pilot, app)
            assert shown(screen) == ["s2", "s0"], "the first batch, newest first, before the others"
            assert "2 of 6 sessions looked at…" in about(screen)
            if moved:
                await pilot.press("down")
        finally:
            go_on.set()
        await settle(pilot)
        assert [Path(info.path).stem for info in screen.listed] == NEWEST_FIRST
        assert [line for line in screen.query_one(SessionList).lines if isinstance(line, str)] == [
            "/home/me/shop  (3 sessions)",
            "/home/me/notes  (3 sessions)",
        ]
        assert "6 sessions in 2 projects · newest first" in about(screen)
        assert "looked at" not in about(screen)
        chosen = screen.query_one(SessionList).chosen
        assert chosen is not None
        where = "a moved cursor stays on its session" if moved else "one on the first row stays on the first row"
        assert Path(chosen.path).stem == ("s0" if moved else "s5"), where


@pytest.mark.parametrize("then", ["reload", "search and escape"])
async def test_a_listing_left_while_it_fills_posts_no_more(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, then: str
) -> None:
    """A reload or a search cancels the filling listing; what it sums up after is not shown over the
    list that replaced it (every batch posted: the older listing's next would come last)."""
    go_on = cold_home(tmp_path, monkeypatch)
    monkeypatch.setattr(sessions_screen, "FILLING_SECONDS", 0)
    app = AgentPagerApp(Workspace(root), start_with_sessions=True, sessions_home=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            screen = await filling(pilot, app)
            if then == "reload":
                await pilot.press("r")
                await until(pilot, lambda: len(screen.listed) == 6 and screen.looked is None, "the list reloaded")
            else:
                await pilot.press("slash", *"export", "enter")
                await until(pilot, lambda: screen.found is not None and not screen.searching, "the search done")
                await pilot.press("escape")
        finally:
            go_on.set()
        await settle(pilot)
        assert screen.found is None
        assert [Path(info.path).stem for info in screen.listed] == NEWEST_FIRST
        assert shown(screen) == ["s5", "s3", "s1", "s4", "s2", "s0"], "by project, newest first"
        assert "6 sessions in 2 projects" in about(screen)
