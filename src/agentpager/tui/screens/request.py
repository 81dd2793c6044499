"""The whole request the real agent sent its model, from the probe screen (``r``): its parts (the
system prompt, the tool definitions, the messages one by one), each with its token count (cl100k)
and its share of the context window; the part under the cursor below, which ``c`` copies."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from agentpager.probe.request import Part
from agentpager.tui.footer import FittedFooter
from agentpager.tui.output_area import OutputArea
from agentpager.wording import plural


class RequestScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,w", "app.pop_screen", "Back"),
        Binding("c", "copy", "Copy this part"),
        Binding("q", "app.quit", "Quit", show=False),
    ]
    DEFAULT_CSS = """
    RequestScreen {
        #about { height: auto; padding: 0 1; background: $boost; }
        #parts { height: auto; max-height: 45%; }
        #part { height: 1fr; }
    }
    """

    def __init__(self, title: str, parts: list[Part], window: int) -> None:
        super().__init__()
        self.title_text = title
        self.parts = parts
        self.window = window

    def compose(self) -> ComposeResult:
        total = sum(part.tokens for part in self.parts if part.depth == 0)
        yield Static(
            f"[b]{self.title_text}[/b] · the request that carried the result: {plural(total, 'token')} "
            f"(cl100k), {total / self.window:.1%} of a {self.window:,}-token window",
            id="about",
        )
        yield DataTable(id="parts", cursor_type="row", zebra_stripes=True)
        yield OutputArea(id="part")
        yield FittedFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("part", "tokens", "share of the window")
        for part in self.parts:
            table.add_row("    " * part.depth + part.label, f"{part.tokens:>9,}", f"{part.share(self.window):>7.1%}")
        table.focus()
        self._show(0)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    def _show(self, row: int) -> None:
        if 0 <= row < len(self.parts):
            self.query_one("#part", OutputArea).show(self.parts[row].text)

    @property
    def current(self) -> Part | None:
        row = self.query_one(DataTable).cursor_row
        return self.parts[row] if 0 <= row < len(self.parts) else None

    def action_copy(self) -> None:
        part = self.current
        if part is None:
            return
        copy: Any = getattr(self.app, "copy_text", None)
        if copy is not None:
            copy(part.text, f"the {part.label}")
        else:
            self.app.copy_to_clipboard(part.text)
