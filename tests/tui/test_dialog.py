"""Dialogs render the screen under them once for each size and theme, not at each change of their
own layout (16-50 ms each at 200x55)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pilot_helpers import settle
from textual.renderables.background_screen import BackgroundScreen

from agentpager import Workspace
from agentpager.tui.app import AgentPagerApp
from agentpager.tui.screens.find_file import FindFile
from agentpager.tui.screens.help import HelpScreen


async def test_a_dialogs_background_is_rendered_again_only_for_a_new_size_or_theme(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text("one\n")
    rendered: list[tuple[int, int | None]] = []
    render = BackgroundScreen.__rich_console__

    def counted(self, console, options):  # noqa: ANN001, ANN202 - BackgroundScreen.__rich_console__
        rendered.append((options.max_width, options.height))
        return render(self, console, options)

    monkeypatch.setattr(BackgroundScreen, "__rich_console__", counted)
    app = AgentPagerApp(Workspace(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key, dialog in (("o", FindFile), ("question_mark", HelpScreen)):
            rendered.clear()
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, dialog)
            for _ in range(3):
                app.screen.refresh(layout=True)
                await pilot.pause()
            assert rendered == [(80, 24)], dialog
            await pilot.resize_terminal(90, 30)
            await pilot.pause()
            assert rendered == [(80, 24), (90, 30)]
            app.theme = "textual-light" if app.theme != "textual-light" else "nord"
            await pilot.pause()
            assert rendered == [(80, 24), (90, 30), (90, 30)]
            await pilot.press("escape")
            await pilot.resize_terminal(80, 24)
            await settle(pilot)
