"""A one-line prompt (go to line, search) that checks its answer before closing, with a history."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from agentpager.tui.screens.dialog import Dialog


class PromptScreen(Dialog[str | None]):
    """Asks for one value; ``check`` returns why a value is wrong, or None to accept it.

    ``history`` (oldest first) is offered with Up and Down, and an accepted value is added to it.
    """

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("up", "history(-1)", "Older", show=False),
        Binding("down", "history(1)", "Newer", show=False),
    ]
    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 60; max-width: 100%; height: auto; padding: 1 2; border: round $accent; background: $surface;
    }
    PromptScreen #hint { color: $text-muted; height: auto; }
    PromptScreen #problem { color: $error; height: auto; }
    """

    def __init__(
        self,
        title: str,
        placeholder: str,
        check: Callable[[str], str | None],
        history: list[str] | None = None,
        hint: str = "",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.check = check
        self.history = history if history is not None else []
        self.hint = hint
        self._position = len(self.history)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield Input(placeholder=self.placeholder)
            yield Static(self.hint, id="hint")
            yield Static("", id="problem")

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        field = self.query_one(Input)
        field.value = self.history[self._position] if self._position < len(self.history) else ""
        field.cursor_position = len(field.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        problem = self.check(event.value)
        if problem:
            self.query_one("#problem", Static).update(problem)
            return
        if event.value and (not self.history or self.history[-1] != event.value):
            if event.value in self.history:
                self.history.remove(event.value)
            self.history.append(event.value)
        self.dismiss(event.value)
