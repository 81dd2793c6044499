"""Keys typed ahead of a screen reach it: ``:1000`` Enter, typed fast or pasted, goes to the line.

Textual sends each key to what has focus when the key arrives (``App.on_event``). Keys that arrive
together with ``:`` all go to the viewer before ``:`` has opened its prompt; they come back to the
app unhandled once the prompt is on top, and were dropped. Here a key stamped before the screen on
top appeared is typed again, now into that screen. Screens that take typing are pushed with
``await``, so their input has focus before the app handles the next key.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.screen import Screen


def _now() -> float:
    """The time on the clock Textual stamps events with."""
    return events.Event().time


class KeepsTypedAhead(App[None]):
    """An app whose screens get the keys typed before they appeared, in the order typed."""

    _screen_shown_at = 0.0

    def _on_mount(self, event: events.Mount) -> None:
        self.screen_change_signal.subscribe(self, self._screen_shown)

    def _screen_shown(self, screen: Screen[object]) -> None:
        self._screen_shown_at = _now()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not self.screen_stack:
            return  # typed again as the app was closing: no screen is left to take it
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """A key nothing handled: typed again if it was typed before the screen on top appeared."""
        if event.time < self._screen_shown_at:
            event.prevent_default()  # not for the app's own bindings: they come after the key is typed again
            self.post_message(event.copy())
