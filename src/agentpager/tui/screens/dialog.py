"""Modal screens that render the screen under them once, not at each change of their own layout."""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen, ScreenResultType


class Dialog(ModalScreen[ScreenResultType]):
    """A modal screen whose background (the screen under it, tinted: Textual's ``BackgroundScreen``)
    is rendered once for each size and theme while it is open.

    Textual renders that background again each time the dialog's own layout changes: 16-50 ms at
    200x55 (a style sum for each segment of the screen under it), twice as a dialog opens and three
    times more as the file finder's list fills. What is under a dialog does not move meanwhile.
    """

    kept_background: tuple[tuple[int, int | None, str], list[Segment]] | None = None
    """The background's segments last rendered, with the size and theme they were rendered for."""

    def render(self) -> RenderableType:
        rendered = super().render()
        return _Kept(self, rendered) if isinstance(rendered, BackgroundScreen) else rendered


class _Kept:
    """A dialog's background, rendered when its size or the theme changed since the last time."""

    def __init__(self, dialog: Dialog[Any], background: BackgroundScreen) -> None:
        self.dialog = dialog
        self.background = background

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (options.max_width, options.height, self.dialog.app.theme)
        kept = self.dialog.kept_background
        if kept is None or kept[0] != key:
            kept = self.dialog.kept_background = (key, list(console.render(self.background, options)))
        return kept[1]
