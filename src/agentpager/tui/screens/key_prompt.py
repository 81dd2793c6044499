"""A one-key question at the bottom of the screen (which mark to set or go to)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Label

from agentpager.tui.screens.dialog import Dialog


class KeyPrompt(Dialog[str | None]):
    """Answers with the next letter (or ``'``) typed; Escape answers None."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    DEFAULT_CSS = """
    KeyPrompt { align: left bottom; background: $background 0%; }
    KeyPrompt > Label { width: 100%; height: 1; margin-bottom: 2; padding: 0 1; background: $accent; color: $text; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Label(f"{self.question} · Escape cancels")

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if character is not None and (character.isalpha() or character == "'") and len(character) == 1:
            event.stop()
            self.dismiss(character)
