"""A transcript's tool calls: what each returned, what it returns now, and where it read.

The call list is a Line-API view (a DataTable took 1.4 s to show 10,000 rows); replay statuses
and token counts fill in from a worker thread while you look.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from agentpager.transcripts import Transcript, short_arguments
from agentpager.transcripts.formats import ToolCall
from agentpager.transcripts.replay import Replay, Replayer
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.output_area import OutputArea
from agentpager.workspace import Workspace

COLUMNS = "    #  turn  tool            recorded        tokens  replay          arguments"


@dataclass(frozen=True)
class Summary:
    """What the list shows of a call once it was replayed."""

    status: str
    tokens: int | None


class CallList(ScrollView, can_focus=True, inherit_bindings=False):
    """One row per call; the cursor row is the call shown below."""

    BINDINGS = [
        Binding("up,k", "move(-1)", show=False),
        Binding("down,j", "move(1)", show=False),
        Binding("pageup", "move(-20)", show=False),
        Binding("pagedown", "move(20)", show=False),
        Binding("home,g", "move(-1000000000)", show=False),
        Binding("end,G", "move(1000000000)", show=False),
    ]
    DEFAULT_CSS = """
    CallList {
        height: 1fr;
        .calllist--cursor { background: $accent 40%; }
        .calllist--same { color: $success; }
        .calllist--differs { color: $warning; }
        .calllist--muted { color: $text-muted; }
        .calllist--error { color: $error; }
    }
    """
    COMPONENT_CLASSES = {
        "calllist--cursor",
        "calllist--same",
        "calllist--differs",
        "calllist--muted",
        "calllist--error",
    }

    cursor = reactive(0)

    class Highlighted(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, calls: list[ToolCall], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls
        self.summaries: dict[int, Summary] = {}
        self.virtual_size = Size(200, len(calls))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = {name: self.get_component_rich_style(name) for name in self.COMPONENT_CLASSES}
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        if index >= len(self.calls):
            return Strip.blank(width, self._base)
        call = self.calls[index]
        summary = self.summaries.get(index)
        recorded = "no result" if call.result is None else f"{call.result.chars:,} chars"
        error = call.result is not None and call.result.is_error
        status = summary.status if summary else "…"
        tokens = "" if summary is None or summary.tokens is None else f"{summary.tokens:,}"
        line = Text(no_wrap=True, end="")
        line.append(f"{call.index:>5}  {call.turn:>4}  {call.tool[:14]:<14}  ")
        line.append(f"{recorded:<14}", self._styles["calllist--error"] if error else None)
        line.append(f"  {tokens:>6}  ")
        style = {"same": "calllist--same", "differs": "calllist--differs"}.get(status, "calllist--muted")
        line.append(f"{status:<14}", self._styles[style])
        line.append(f"  {short_arguments(call.arguments, 200)}", self._styles["calllist--muted"])
        row_style = self._base + self._styles["calllist--cursor"] if index == self.cursor else self._base
        strip = Strip(list(line.render(self.app.console))).apply_style(row_style)
        return strip.crop_extend(scroll_x, scroll_x + width, row_style)

    def action_move(self, rows: int) -> None:
        if self.calls:
            self.cursor = max(0, min(len(self.calls) - 1, self.cursor + rows))

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(new))

    def on_click(self, event) -> None:  # noqa: ANN001 - a textual Click event
        self.cursor = min(len(self.calls) - 1, int(self.scroll_y) + event.y)


class TranscriptScreen(ReportsFailures, Screen[None]):
    """The transcript's calls; below, the selected call recorded, replayed, and the difference."""

    BINDINGS = [
        Binding("o,enter", "open_call", "Open in the viewer"),
        Binding("escape,w", "app.pop_screen", "Workspace"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    TranscriptScreen {
        #about { height: auto; padding: 0 1; background: $boost; }
        #columns { height: 1; padding: 0 0; color: $text-muted; text-style: bold; }
        CallList { height: 1fr; }
        #detail { height: 1fr; }
        #summary { height: auto; padding: 0 1; }
    }
    """

    class OpenCall(Message):
        """Show this call's file in the viewer, at its window, with the panel set to the call."""

        def __init__(self, replay: Replay) -> None:
            super().__init__()
            self.replay = replay

    class _Replayed(Message):
        def __init__(self, summaries: dict[int, Summary]) -> None:
            super().__init__()
            self.summaries = summaries

    def __init__(self, transcript: Transcript, replayer: Replayer) -> None:
        super().__init__()
        self.transcript = transcript
        self.replayer = replayer

    def compose(self) -> ComposeResult:
        transcript = self.transcript
        problems = f" · {len(transcript.problems)} unreadable records skipped" if transcript.problems else ""
        yield Static(
            f"[b]{transcript.path}[/b] · {transcript.format} · {len(transcript.calls):,} tool calls · "
            f"replayed against {self.replayer.root}{problems}",
            id="about",
            markup=True,
        )
        yield Static(COLUMNS, id="columns")
        yield CallList(transcript.calls, id="calls")
        with Vertical(id="detail"):
            yield Static("", id="summary")
            with TabbedContent(id="outputs"):
                for name in ("recorded", "replayed", "difference"):
                    with TabPane(name.capitalize(), id=f"tab-{name}"):
                        yield OutputArea(id=name)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(CallList).focus()
        if self.transcript.calls:
            self._show(0)
        # Replaying every call competes with the first paint: start once the list is on screen.
        self.call_after_refresh(self._replay_all, self.transcript.calls, self.replayer)

    @work(thread=True, group="replay", exit_on_error=False)
    def _replay_all(self, calls: list[ToolCall], replayer: Replayer) -> None:
        worker = get_current_worker()
        batch: dict[int, Summary] = {}
        for call in calls:
            if worker.is_cancelled:
                return
            replay = replayer.replay(call)
            tokens = None if replay.recorded is None else Workspace.count_tokens(replay.recorded)
            batch[call.index] = Summary(replay.status, tokens)
            if len(batch) >= 200:
                self.post_message(self._Replayed(batch))
                batch = {}
        self.post_message(self._Replayed(batch))

    @on(_Replayed)
    def _replayed(self, event: _Replayed) -> None:
        calls = self.query_one(CallList)
        calls.summaries.update(event.summaries)
        calls.refresh()

    @on(CallList.Highlighted)
    def _highlighted(self, event: CallList.Highlighted) -> None:
        self._show(event.index)

    def _show(self, index: int) -> None:
        self._load(self.transcript.calls[index])

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def _load(self, call: ToolCall) -> None:
        """Replay the call and diff the outputs off the UI thread (outputs can be megabytes)."""
        replay = self.replayer.replay(call)
        self.app.call_from_thread(self._display, replay, _difference(replay))

    def _display(self, replay: Replay, difference: str) -> None:
        call = replay.call
        if replay.plan is None:
            how = "not replayable: not one of the file tools"
        else:
            how = f"replayed with the {replay.plan.profile} profile as {replay.plan.tool}({short_arguments(replay.plan.arguments, 80)})"
        self.query_one("#summary", Static).update(
            Text.assemble(
                (f"#{call.index} ", "bold"), f"turn {call.turn} · {call.tool} · {how} · ", (replay.status, "bold")
            )
        )
        self.query_one("#recorded", OutputArea).show(_recorded(replay))
        self.query_one("#replayed", OutputArea).show(_replayed(replay))
        self.query_one("#difference", OutputArea).show(difference)

    def action_open_call(self) -> None:
        calls = self.query_one(CallList)
        if calls.calls:
            self._open(calls.calls[calls.cursor])

    @work(thread=True, exclusive=True, group="open", exit_on_error=False)
    def _open(self, call: ToolCall) -> None:
        replay = self.replayer.replay(call)
        if replay.plan is None:
            self.notify("This call is not a file read: there is no window to open.", severity="warning")
            return
        self.post_message(self.OpenCall(replay))


def _recorded(replay: Replay) -> str:
    return replay.recorded if replay.recorded is not None else "(no result recorded)"


def _replayed(replay: Replay) -> str:
    return replay.result.text if replay.result is not None else "(not replayable)"


def _difference(replay: Replay) -> str:
    if replay.result is None:
        return "(not replayable)"
    if replay.matches:
        return "(the same, byte for byte)"
    recorded, replayed = _recorded(replay).splitlines(keepends=True), _replayed(replay).splitlines(keepends=True)
    return "".join(difflib.unified_diff(recorded, replayed, "recorded", "replayed now"))
