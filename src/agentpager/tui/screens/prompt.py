"""A one-line prompt (go to line, search) that checks its answer before closing."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class PromptScreen(ModalScreen[str | None]):
    """Asks for one value; ``check`` returns why a value is wrong, or None to accept it."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 60; height: auto; padding: 1 2; border: round $accent; background: $surface;
    }
    PromptScreen #problem { color: $error; height: auto; }
    """

    def __init__(self, title: str, placeholder: str, check: Callable[[str], str | None]) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield Input(placeholder=self.placeholder)
            yield Static("", id="problem")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        problem = self.check(event.value)
        if problem:
            self.query_one("#problem", Static).update(problem)
        else:
            self.dismiss(event.value)
