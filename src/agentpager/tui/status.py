"""The one-line status under the screen: the call, and what its output costs. Always visible."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.markup import escape
from textual.widgets import Label

from agentpager.exchange import arguments_line, kept_arguments_width

if TYPE_CHECKING:
    from agentpager.tui.tool_panel import Outcome


SHORT_BELOW = 100
"""Below this many columns the status uses fewer words."""


def call_line(tool: str, arguments: dict[str, Any], width: int | None = None) -> str:
    """``read_file path="big.txt" start_line=450``: a call in one line; in ``width`` characters, its
    numbers kept and its texts cut, the longest first: see ``arguments_line``."""
    shown = arguments_line(arguments, None if width is None else max(1, width - len(tool) - 1), keep_numbers=True)
    return f"{tool} {shown}".rstrip()


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

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[Outcome | None, bool] = (None, False)

    def show(self, outcome: Outcome | None, pinned: bool) -> None:
        """The call and its cost; in a small terminal, in fewer words. The call fits the line: its
        texts are cut in the middle, its numbers kept (``start_line=450``); when even its file names
        do not fit beside the cost, the cost leaves out the count of characters (the tokens stay)."""
        self._shown = (outcome, pinned)
        short = self.size.width < SHORT_BELOW
        mode = "pinned " if pinned else "" if short else "following "

        def room_beside(cost: str) -> int:
            return self.size.width - 4 - len(mode) - Content.from_markup(cost).cell_length  # 4: two paddings

        cost = self._cost(outcome, short)
        room = room_beside(cost)
        if outcome is not None and len(outcome.tool) + 1 + kept_arguments_width(outcome.arguments, room) > room:
            cost = self._cost(outcome, short, chars=False)
        room = max(room_beside(cost), 10)
        call = "no call yet" if outcome is None else call_line(outcome.tool, outcome.arguments, room)
        shown_mode = "[b $warning]pinned[/] " if pinned else "" if short else "[dim]following[/] "
        self.query_one("#call-summary", Label).update(shown_mode + escape(call))
        self.query_one("#call-cost", Label).update(cost)

    def on_resize(self) -> None:
        self.show(*self._shown)

    @staticmethod
    def _cost(outcome: Outcome | None, short: bool, chars: bool = True) -> str:
        if outcome is None:
            return ""
        result = outcome.result
        parts = [f"{len(result.text):,} chars"] if chars else []
        parts.append(f"{outcome.tokens:,} {'tok' if short else 'tokens'}")
        if result.truncated:
            parts.append("[b $warning]cut[/]" if short else "[b $warning]cut by the output guard[/]")
        elif not short:  # a small terminal says only when it is cut
            parts.append("not truncated")
        if result.is_error:
            parts.append("[b $error]error[/]")
        return " · ".join(parts)
