"""The one-line status under the screen: the call, and what its output costs. Always visible."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.markup import escape
from textual.widgets import Label

if TYPE_CHECKING:
    from agentpager.tui.tool_panel import Outcome


SHORT_BELOW = 100
"""Below this many columns the status uses fewer words."""


def call_line(tool: str, arguments: dict[str, Any]) -> str:
    """``read_file path="big.txt" start_line=450``: a call in one line."""
    shown = (f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items())
    return f"{tool} {' '.join(shown)}".rstrip()


class CallStatus(Horizontal):
    """``pinned read_file path="big.txt" start_line=450   14,606 chars · 2,697 tokens · not truncated``."""

    DEFAULT_CSS = """
    CallStatus {
        height: 1;
        background: $panel;
        #call-summary { width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; padding: 0 1; }
        #call-cost { width: auto; height: 1; padding: 0 1; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Label("no call yet: choose a file or a directory", id="call-summary")
        yield Label("", id="call-cost")

    def show(self, outcome: Outcome | None, pinned: bool) -> None:
        """The call and its cost; in a small terminal, in fewer words."""
        short = self.size.width < SHORT_BELOW
        mode = "[b $warning]pinned[/] " if pinned else "" if short else "[dim]following[/] "
        call = "no call yet" if outcome is None else call_line(outcome.tool, outcome.arguments)
        self.query_one("#call-summary", Label).update(mode + escape(call))
        self.query_one("#call-cost", Label).update(self._cost(outcome, short))

    @staticmethod
    def _cost(outcome: Outcome | None, short: bool) -> str:
        if outcome is None:
            return ""
        result = outcome.result
        parts = [f"{len(result.text):,} chars", f"{outcome.tokens:,} {'tok' if short else 'tokens'}"]
        if result.truncated:
            parts.append("[b $warning]cut[/]" if short else "[b $warning]cut by the output guard[/]")
        else:
            parts.append("not cut" if short else "not truncated")
        if result.is_error:
            parts.append("[b $error]error[/]")
        return " · ".join(parts)
