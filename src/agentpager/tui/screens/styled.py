"""Screens styled once as they start, not three times."""

from __future__ import annotations

from typing import Any

from textual import events
from textual._context import NoActiveAppError
from textual.screen import Screen


class StyledOnce(Screen[Any]):
    """A screen that starts with the class of its width, and is not restyled at its first resume.

    Textual styles each widget as it mounts, then restyles the whole screen at its first
    ``ScreenResume`` and again when its first resize adds the breakpoint class (``-wide``): two
    passes over every widget that changed nothing, a third of the app's start.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resumed = False
        try:
            width, breakpoints = self.app.size.width, self.app.HORIZONTAL_BREAKPOINTS or []
        except NoActiveAppError:  # made outside a running app: its first resize adds the class
            return
        self.add_class(*self._get_breakpoint_classes(width, breakpoints), update=False)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before Textual's own handler (a subclass's handler comes first)."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
