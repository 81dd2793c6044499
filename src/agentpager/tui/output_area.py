"""A read-only view of exact tool output: scrollable, selectable, control characters made visible."""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea

from agentpager.tui.lines import visible


class OutputArea(TextArea):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", read_only=True, soft_wrap=True, show_cursor=False, highlight_cursor_line=False, **kwargs)
        self.match_cursor_bracket = False

    def show(self, text: str) -> None:
        """Show ``text`` (its control characters as symbols; copies keep the exact text)."""
        self.load_text(visible(text))
        # Textual 8.2.8 repaints after load_text only when the line count changes: a new output of
        # as many lines stayed on screen as the old one.
        self.refresh()
