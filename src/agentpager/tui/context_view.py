"""The context chart: each model turn's context fill against the model's window, a row of text each.

Rows of text rather than a plotting library: Textual has no chart widget, and textual-plotext (last
released 2024) or textual-plot draw one canvas at the widget's size, where a session of 40 or 4,000
turns wants a row per turn that scrolls (PgDn) with its number beside it, legible at 80 columns.
Each bar takes the width the view has, and its full length is the window of the session's model
(the largest, when turns differ): ``▓`` is the part of the context that was tool outputs (from the
usage recorded), ``█`` the rest, ``·`` the room left in the turn's window, ``▒`` what went past it.
The header (the model, its window, the scale) stays while the rows scroll; a compaction is a line.
The chart is of one agent (the agent of the call under the cursor: a subagent has its own context),
SHOWN_TURNS of its turns around the call's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from agentpager.transcripts import Transcript, listed_arguments
from agentpager.transcripts.context import AgentContext, OutputCost, TurnFill, compaction_note, estimate_note
from agentpager.transcripts.formats import ToolCall
from agentpager.wording import cut_end, fit

TURN_COLUMNS = 5
"""``{turn:>4} ``"""
TOKEN_COLUMNS = 10
""" ``{tokens:>8,}`` and ``~`` when estimated."""
NARROWEST_BAR = 10
SHOWN_TURNS = 400
"""Turns charted at a time, around the turn of the call under the cursor (a session can have 100,000)."""


@dataclass(frozen=True)
class Charted:
    """What the chart shows of one agent's context."""

    fills: list[TurnFill]
    """Its turns around the call's (at most SHOWN_TURNS)."""
    turns: int
    """How many turns it has."""
    costliest: list[tuple[OutputCost, ToolCall]]
    """Its costliest tool outputs, each with its call."""
    focus: int = 0
    """Where the call's turn is in ``fills``."""

    @property
    def partial(self) -> bool:
        """Whether these are not all its turns (``chart`` says which they are, on a line of its own)."""
        return bool(self.fills) and (self.fills[0].number > 1 or self.fills[-1].number < self.turns)

    def focus_line(self) -> int:
        """The line of ``chart`` that holds the call's turn (the compactions' lines before it counted)."""
        compactions = sum(turn.compacted is not None for turn in self.fills[: self.focus + 1])
        return self.partial + compactions + self.focus


def charted(transcript: Transcript, context: AgentContext, source: int, focus: int) -> Charted:
    """The turns of ``context`` around its turn ``focus`` and its costliest outputs (of file ``source``)."""
    rows = context.rows()
    first = max(0, min(focus - SHOWN_TURNS // 2, len(rows) - SHOWN_TURNS))
    fills = [context.fill(rows, k) for k in range(first, min(len(rows), first + SHOWN_TURNS))]
    costliest = [(cost, transcript.calls.call(source, cost.number)) for cost in context.costliest()]
    return Charted(fills, len(rows), costliest, max(0, min(focus - first, len(fills) - 1)))


def bar_width(width: int) -> int:
    """The bars' width in a view ``width`` columns wide."""
    return max(NARROWEST_BAR, width - TURN_COLUMNS - TOKEN_COLUMNS)


def scale_of(fills: list[TurnFill]) -> int:
    """The tokens a whole bar stands for: the largest window, or the largest context past it."""
    return max([1, *(turn.window or 0 for turn in fills), *(turn.context for turn in fills)])


def header(shown: Charted, width: int) -> Text:
    """The model and its window, what the marks mean, and the scale over the bars."""
    out = Text(no_wrap=True, overflow="ellipsis")
    fills = shown.fills
    if not fills:
        out.append("No model turns recorded.", "dim")
        return out
    windows = sorted({turn.window for turn in fills if turn.window})
    models = sorted({turn.model for turn in fills if turn.model})
    if not windows:
        window = "window unknown"
    elif len(windows) == 1:
        window = f"window {windows[0]:,} tokens"
    else:
        window = f"windows {windows[0]:,} to {windows[-1]:,} tokens"
    model = cut_end(", ".join(models) or "model unknown", max(12, width - len(window) - 3))
    out.append(model, "bold")
    out.append(f" · {window}\n")
    out.append("▓", "yellow")
    out.append(" tool outputs  ")
    out.append("█", "cyan")
    out.append(" the rest of the context  ")
    out.append("·", "dim")
    out.append(" room left  ")
    out.append("▒", "bold red")
    out.append(" past the window\n")
    out.append(
        f"{'turn':<{TURN_COLUMNS}}{_ticks(scale_of(fills), bar_width(width))}{'tokens':>{TOKEN_COLUMNS}}", "bold"
    )
    return out


def chart(shown: Charted, width: int) -> Text:
    """One bar per model turn (a compaction before a turn is a line), then the costliest tool outputs."""
    out = Text(no_wrap=True, overflow="ellipsis")
    fills = shown.fills
    scale, bars = scale_of(fills), bar_width(width)
    if shown.partial:
        out.append(f"turns {fills[0].number:,}-{fills[-1].number:,} of {shown.turns:,}, around the call's\n", "dim")
    for turn in fills:
        if turn.compacted is not None:
            mark = "" if turn.compacted.new_session else "✂ "
            note = f"── {mark}{compaction_note(turn.compacted)}: the context starts again "
            out.append(f"{'':<{TURN_COLUMNS}}{note:─<{bars}}\n", "bold magenta")
        out.append(f"{turn.number:>{TURN_COLUMNS - 1}} ")
        _bar(out, turn, scale, bars)
        out.append(f" {turn.context:>{TOKEN_COLUMNS - 2},}{'~' if turn.estimated else ' '}")
        if turn.overflow != "none":
            out.append(f" over: {turn.overflow}", "bold red")
        out.append("\n")
    estimated = [turn.number for turn in fills if turn.estimated]
    if estimated:
        out.append(estimate_note(estimated, len(fills)) + "\n", "dim")
    out.append("\nCostliest tool outputs (tokens from usage; ~ counted with cl100k)\n", "bold")
    for cost, call in shown.costliest:
        row = Text(f"{'~' if cost.counted else ' '}{cost.tokens:>8,}  #{call.index:<5} {fit(call.tool, 14)} ")
        row.append(listed_arguments(call, max(20, width - row.cell_len)))
        row.truncate(width, overflow="ellipsis")  # by cells: a wide character takes two
        out.append_text(row)
        out.append("\n")
    return out


def _bar(out: Text, turn: TurnFill, scale: int, width: int) -> None:
    def cells(tokens: int) -> int:
        return min(width, round(width * tokens / scale))

    window = cells(turn.window) if turn.window else width
    sent = cells(turn.context)
    within = min(sent, window)
    outputs = min(within, cells(turn.outputs))
    out.append("▓" * outputs, "yellow")
    out.append("█" * (within - outputs), "cyan")
    out.append("▒" * (sent - within), "bold red")
    out.append("·" * (window - within), "dim")
    out.append(" " * (width - max(window, sent)))


def _ticks(scale: int, width: int) -> str:
    """``0      50k     100k     150k     200k`` over a bar ``width`` wide."""
    line = [" "] * width
    for quarter in range(5):
        label = _short(scale * quarter // 4)
        at = min(width - len(label), round(width * quarter / 4) - (len(label) // 2 if 0 < quarter < 4 else 0))
        if quarter and at <= len("".join(line).rstrip()):
            continue  # no room between the labels
        line[at : at + len(label)] = label
    return "".join(line)


def _short(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.3g}M"
    return f"{tokens / 1000:.3g}k" if tokens >= 1000 else str(tokens)


SCROLL_CHART = "Scroll the Context tab's chart"
"""What each of the chart's keys does (one line in the help)."""


class ChartRows(VerticalScroll, inherit_bindings=False):
    """The chart's rows: ↑ ↓ PgUp PgDn Home End scroll them; ← → are left to the screen (its tabs).
    Their scrollbar is always there: the bars are as wide before the rows outgrow the view as after."""

    BINDINGS = [
        Binding("up", "scroll_up", "Up", show=False, tooltip=SCROLL_CHART),
        Binding("down", "scroll_down", "Down", show=False, tooltip=SCROLL_CHART),
        Binding("pageup", "page_up", "Page up", show=False, tooltip=SCROLL_CHART),
        Binding("pagedown,space", "page_down", "Page down", show=False, tooltip=SCROLL_CHART),
        Binding("home", "scroll_home", "Top", show=False, tooltip=SCROLL_CHART),
        Binding("end", "scroll_end", "Bottom", show=False, tooltip=SCROLL_CHART),
    ]


class ContextView(Vertical):
    """The chart of one agent's context (the agent of the call under the cursor: a subagent has its
    own), computed in a worker for the turns around that call's."""

    DEFAULT_CSS = """
    ContextView {  /* the rows' focus shown as the Conversation's, by the whole view's left edge: */
        border-left: tall $border-blurred;  /* the header's scale stays over the bars */
        &:focus-within { border-left: tall $border; }
        #context-head { height: auto; padding: 0 1; background: $boost; }
        ChartRows { height: 1fr; padding: 0 1; overflow-x: hidden; overflow-y: scroll; }
    }
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
        self.shown: Charted | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Counting the context…", "dim"), id="context-head")
        with ChartRows(id="context-rows"):
            yield Static("", id="chart")

    def show_agent(self, source: int, agent: str, turn: int) -> None:
        """Chart the context of this agent (see ``agent_context``), around its turn ``turn``."""
        index = self.transcript.index_of(source)
        if (index, agent, turn) != (self.context.index, self.context.agent, self.focus_turn):
            if (index, agent) != (self.context.index, self.context.agent):
                self.context, self.source = AgentContext(index, agent), source
            self.focus_turn = turn
            self.refresh_report()

    def on_resize(self) -> None:
        self._draw()

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
        self.app.call_from_thread(self._counted, charted(self.transcript, context, source, focus))

    def _counted(self, shown: Charted) -> None:
        self.shown = shown
        self._draw()
        rows = self.query_one(ChartRows)  # the call's turn in the middle of the view, once charted
        rows.call_after_refresh(rows.scroll_to, y=max(0, shown.focus_line() - rows.size.height // 2), animate=False)

    def _draw(self) -> None:
        """The header and the rows at the view's width (a bar is as wide as the rows leave)."""
        if self.shown is None or not self.size.width:
            return
        rows = self.query_one(ChartRows)
        width = rows.scrollable_content_region.width or self.size.width - 4
        self.query_one("#context-head", Static).update(header(self.shown, width))
        self.query_one("#chart", Static).update(chart(self.shown, width))
