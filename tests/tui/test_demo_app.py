"""The demo in the TUI: its log open, a note on what to try, its session one key away; its first screen."""

from __future__ import annotations

from pathlib import Path

from pilot_helpers import settle
from test_snapshots import steady
from textual.pilot import Pilot

from agentpager.demo import build_demo
from agentpager.tui import DEMO_WELCOME, demo_app
from agentpager.tui.screens.transcript import CallList, TranscriptScreen


async def test_the_demo_opens_its_log_with_a_note_and_offers_its_session(demo_root: Path) -> None:
    demo = build_demo(demo_root, 3_000_000)
    assert demo.reused
    app = demo_app(demo)
    async with app.run_test(size=(200, 55)) as pilot:
        await settle(pilot)
        assert app.viewer.path == "logs/app.log" and app.viewer.line_count > 10_000
        assert app.panel.outcome is not None
        assert app.panel.outcome.result.text.startswith("[File: logs/app.log | Lines 1-200 of ")
        assert [str(notice.message) for notice in app._notifications] == [DEMO_WELCOME.format(size="3 MB")]
        await pilot.press("t")
        await settle(pilot, 10)
        assert isinstance(app.screen, TranscriptScreen)
        await settle(pilot, 10)
        listed = app.screen.query_one(CallList)
        statuses = [summary.status for summary in listed.summaries.values()]
        assert statuses.count("differs") == 1 and statuses.count("same") >= 5


def test_demo_first_screen(demo_root: Path, snap_compare) -> None:
    demo = build_demo(demo_root, 3_000_000)
    app = demo_app(demo)

    async def ready(pilot: Pilot) -> None:
        await steady(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=ready)
