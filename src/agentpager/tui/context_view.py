"""The context chart: each model turn's context fill against the model's window, as Rich bars.

Rich bars rather than a plotting library: Textual has no chart widget, and textual-plotext (last
released 2024) draws the whole plot again on every refresh at a size it chooses, where bars are one
line per turn that fit 80 columns and keep each tool output's share visible as text. ``█`` is the
context the turn sent, ``▓`` the part of it that was tool outputs (from the usage recorded), ``·`` the
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
from agentpager.transcripts.context import AgentContext, OutputCost, TurnFill, compaction_note, estimate_note

BAR_WIDTH = 32
SHOWN_TURNS = 400
"""Turns charted at a time, around the turn of the call under the cursor (a session can have 100,000)."""


def chart(
    fills: list[TurnFill], costliest: list[tuple[OutputCost, str]], width: int = BAR_WIDTH, turns: int | None = None
) -> Text:
    """One bar per model turn (``fills``: some of the ``turns`` of one agent), then the costliest
    tool outputs (each with its line's text)."""
    out = Text(no_wrap=True)
    windows = [turn.window for turn in fills if turn.window]
    scale = max([*windows, *(turn.context for turn in fills), 1])
    turns = len(fills) if turns is None else turns
    if fills:
        out.append(f"turn {'context (█ sent, ▓ tool outputs, · window left)':<{width + 2}}   tokens   window\n", "bold")
    else:
        out.append("No model turns recorded.\n", "dim")
    if fills and (fills[0].number > 1 or fills[-1].number < turns):
        out.append(f"turns {fills[0].number:,}-{fills[-1].number:,} of {turns:,}, around the call's\n", "dim")
    for turn in fills:
        if turn.compacted is not None:
            mark = "" if turn.compacted.new_session else "✂  "
            out.append(f"  {mark}{compaction_note(turn.compacted)}: the context starts again\n", "bold magenta")
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
    estimated = [turn.number for turn in fills if turn.estimated]
    if estimated:
        out.append(estimate_note(estimated, len(fills)) + "\n", "dim")
    out.append("\nCostliest tool outputs (tokens from usage; ~ counted with cl100k)\n", "bold")
    for cost, line in costliest:
        out.append(f"{'~' if cost.counted else ' '}{cost.tokens:>8,}  {line}\n")
    return out


class ContextView(VerticalScroll):
    """The chart of one agent's context (the agent of the call under the cursor: a subagent has its
    own), computed in a worker for the turns around that call's."""

    DEFAULT_CSS = """
    ContextView #chart { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, transcript: Transcript, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.transcript = transcript
        self.context = AgentContext(transcript.index)
        self.source = 0
        """The transcript's file the agent's calls are in."""
        self.focus_turn = 0
        """The turn (of the agent's) the chart is centred on."""
        self.stale = True
        """Whether the chart is not of the agent and turn to chart (it is charted when shown)."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Counting the context…", "dim"), id="chart")

    def show_agent(self, source: int, agent: str, turn: int) -> None:
        """Chart the context of this agent (see ``agent_context``), around its turn ``turn``."""
        index = self.transcript.index_of(source)
        if (index, agent, turn) != (self.context.index, self.context.agent, self.focus_turn):
            if (index, agent) != (self.context.index, self.context.agent):
                self.context, self.source = AgentContext(index, agent), source
            self.focus_turn = turn
            self.refresh_report()

    def refresh_report(self) -> None:
        """Chart again, now if the chart is on screen, else when it is next shown."""
        self.stale = True
        if self.is_on_screen:
            self.stale = False
            self._count(self.context, self.source, self.focus_turn)

    @property
    def is_on_screen(self) -> bool:
        return self.is_mounted and self.screen.is_active and self.region.area > 0

    def on_show(self) -> None:
        if self.stale:
            self.refresh_report()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False, description="charting the context")
    def _count(self, context: AgentContext, source: int, focus: int) -> None:
        rows = context.rows()
        first = max(0, min(focus - SHOWN_TURNS // 2, len(rows) - SHOWN_TURNS))
        fills = [context.fill(rows, k) for k in range(first, min(len(rows), first + SHOWN_TURNS))]
        calls = self.transcript.calls
        costliest = []
        for cost in context.costliest():
            call = calls.call(source, cost.number)
            costliest.append((cost, f"#{call.index:<5} {call.tool:<14} {short_arguments(call.arguments, 60)}"))
        shown = chart(fills, costliest, turns=len(rows))
        self.app.call_from_thread(self.query_one("#chart", Static).update, shown)
