"""The context chart: each model turn's context fill against the model's window, as Rich bars.

Rich bars rather than a plotting library: Textual has no chart widget, and textual-plotext (last
released 2024) draws the whole plot again on every refresh at a size it chooses, where bars are one
line per turn that fit 80 columns and keep each tool output's share visible as text. ``█`` is the
context the turn sent, ``▓`` the part of it that was tool outputs (cl100k estimates), ``·`` the
room left in the window; a turn past its window is marked with its overflow class.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agentpager.transcripts import Transcript, short_arguments
from agentpager.transcripts.context import ContextReport, Counts, context_report, estimate_note

BAR_WIDTH = 32


def chart(report: ContextReport, width: int = BAR_WIDTH) -> Text:
    """One bar per model turn, then the costliest tool outputs."""
    out = Text(no_wrap=True)
    windows = [turn.window for turn in report.turns if turn.window]
    scale = max([*windows, *(turn.context for turn in report.turns), 1])
    if report.turns:
        out.append(f"turn {'context (█ sent, ▓ tool outputs, · window left)':<{width + 2}}   tokens   window\n", "bold")
    else:
        out.append("No model turns recorded.\n", "dim")
    for turn in report.turns:
        window = turn.window or scale
        sent = round(width * min(turn.context, window) / window)
        outputs = min(sent, round(width * turn.outputs / window))
        out.append(f"{turn.number:>4} ")
        out.append("▓" * outputs, "yellow")
        out.append("█" * (sent - outputs), "cyan")
        out.append("·" * (width - sent), "dim")
        estimate = "~" if turn.estimated else " "
        out.append(f"  {estimate}{turn.context:>8,} {turn.window or 0:>8,}")
        if turn.overflow != "none":
            out.append(f"  over: {turn.overflow}", "bold red")
        out.append("\n")
    if report.estimated:
        out.append(estimate_note(report) + "\n", "dim")
    out.append("\nCostliest tool outputs (cl100k tokens, an estimate for every model)\n", "bold")
    for cost in report.costliest:
        call = cost.call
        out.append(f"{cost.tokens:>9,}  #{call.index:<5} {call.tool:<14} {short_arguments(call.arguments, 60)}\n")
    return out


class ContextView(VerticalScroll):
    """The chart of a transcript's context, computed in a worker (it counts every tool output, and
    the conversation where the log records no usage); what was counted is kept in ``counts``."""

    DEFAULT_CSS = """
    ContextView #chart { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, transcript: Transcript, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.transcript = transcript
        self.counts = Counts()

    def compose(self) -> ComposeResult:
        yield Static(Text("Counting the context…", "dim"), id="chart")

    def on_mount(self) -> None:
        self.refresh_report()

    def refresh_report(self) -> None:
        self._count()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False)
    def _count(self) -> None:
        shown = chart(context_report(self.transcript, counts=self.counts))
        self.app.call_from_thread(self.query_one("#chart", Static).update, shown)
