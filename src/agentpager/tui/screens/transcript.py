"""A transcript's tool calls: what each returned, what it returns now, the conversation around it,
and what the session cost its context window.

The call list is a Line-API view (a DataTable took 1.4 s to show 10,000 rows) over the
transcript's record index: it shows the first calls while the rest of the log is read, reads only
the calls on screen (from their records), and replays those in a worker thread while you look.
``turn`` is the model turn (request) that made a call, counted in its agent's own turns as the
context chart counts them. Subagents' calls are under the call that started them (``└``); ``✂``
marks the first call after a compaction. ``← →`` (or ``[ ]``) switch the tabs below the list,
``f`` filters (calls that differ, errors, the selected call's tool), ``/`` searches the whole
session (conversation, arguments, outputs), ``F`` follows a session still being written.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.events import Resize
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Static, TabbedContent, TabPane, Tabs
from textual.worker import get_current_worker

from agentpager.exchange import arguments_line
from agentpager.fileview import Cancelled, ViewError
from agentpager.transcripts import Transcript, TranscriptError, listed_arguments, short_arguments
from agentpager.transcripts.context import compaction_note
from agentpager.transcripts.formats import ToolCall
from agentpager.transcripts.index import Boundaries
from agentpager.transcripts.replay import Replay, Replayer
from agentpager.tui.context_view import ChartRows, ContextView
from agentpager.tui.diff_view import difference
from agentpager.tui.failures import ReportsFailures
from agentpager.tui.footer import FittedFooter
from agentpager.tui.lines import smart_case
from agentpager.tui.output_area import OutputArea
from agentpager.tui.rows import CursorList, row_styles
from agentpager.tui.screens.exporting import ExportsSessions
from agentpager.tui.screens.prompt import PromptScreen
from agentpager.tui.screens.styled import StyledOnce
from agentpager.wording import byte_size, cut_middle, fit, plural
from agentpager.workspace import Workspace

if TYPE_CHECKING:
    from agentpager.fileview import Matcher

COLUMNS = f"{'#':>5}  {'turn':>4}  {'tool':<16}  {'recorded':<14}  {'tokens':>7}  {'replay':<14}  arguments"
NARROW_COLUMNS = f"{'#':>5}  {'tool':<12} {'chars':>7} {'tokens':>7} {'replay':<9} arguments"
"""Below WIDE_FROM columns: no turn (the line under the list says it), shorter tool, size and status,
one space between columns (but the compaction mark's, after the number): what is left is for the arguments."""
WIDE_FROM = 120
ARGUMENTS_AT_LEAST = 20
"""Columns the arguments get however narrow the list (the row is cut at the screen's edge)."""
SHORT_STATUS = {"not replayable": "not repl."}
FILTERS = ("all calls", "calls that differ", "errors", "this tool")
OUTPUT_TABS = {"recorded": "As logged", "received": "As received", "replayed": "Replayed"}
"""The call's outputs: what the agent's log kept (what replay compares), what its model received (the
log's text with what the agent's harness adds on the way, by its profile's rules), what it gives now.
Labels short enough that 80 columns hold every tab."""
FOLLOW_SECONDS = 0.5
WATCH_SECONDS = 0.25
"""How often the list looks at what the index read meanwhile, and at the rows it shows."""
COMPACTED = "✂"
"""Marks the first call after a compaction (between the number and the turn)."""
TABS = Binding.Group("Tabs", compact=True)

Key = tuple[int, int]


@dataclass(frozen=True)
class Summary:
    """What the list shows of a call once it was replayed."""

    status: str
    tokens: int | None


class CallList(CursorList):
    """One row per shown call; the cursor row is the call shown below. Only the rows on screen are
    read (each call from its record); the list grows while the transcript's index is built."""

    DEFAULT_CSS = """
    CallList {
        height: 1fr;
        overflow-x: hidden;
        .calllist--cursor { background: $accent 20%; }
        &:focus .calllist--cursor { background: $accent 40%; }
        .calllist--same { color: $success; }
        .calllist--differs { color: $warning; }
        .calllist--muted { color: $text-muted; }
        .calllist--error { color: $error; }
        .calllist--compacted { color: $secondary; }
    }
    """
    COMPONENT_CLASSES = {
        "calllist--cursor",
        "calllist--same",
        "calllist--differs",
        "calllist--muted",
        "calllist--error",
        "calllist--compacted",
    }

    cursor = reactive(0)

    class Highlighted(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, transcript: Transcript, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.transcript = transcript
        self._rows: list[int] | None = None
        """The calls shown, by their place in ``calls``; None: all of them."""
        self.summaries: dict[Key, Summary] = {}
        self.compacted: dict[Key, tuple[Boundaries, int]] = {}
        """The first call after each compaction, with the compaction (see ``_compactions``)."""
        """The first call after each compaction, and the compaction (a new session is not marked)."""
        self.known = len(self.calls)
        """The calls the list knows of (while the transcript is read, ``grew`` adds those read since)."""
        self.virtual_size = Size(self.size.width, self.known)

    @property
    def calls(self) -> Sequence[ToolCall]:
        return self.transcript.calls

    @property
    def rows(self) -> Sequence[int]:
        """The places (in ``calls``) of the calls shown."""
        return range(self.known) if self._rows is None else self._rows

    def show_rows(self, rows: list[int] | None) -> None:
        """Show these calls (None: all of them); the cursor stays on the same call when it is still shown."""
        current = self.current_call
        self._rows, self.known = rows, len(self.calls)
        shown = self.rows
        self.virtual_size = Size(self.size.width, len(shown))
        place = None if current is None else self.transcript.calls.place_of(*current.key)
        if place is None:
            cursor = 0
        elif rows is None:
            cursor = place
        else:
            at = bisect.bisect_left(rows, place)
            cursor = at if at < len(rows) and rows[at] == place else 0
        if cursor != self.cursor:
            self.cursor = cursor
        elif shown:
            self.post_message(self.Highlighted(shown[self.cursor]))
        self.refresh()

    def grew(self) -> None:
        """The transcript has more calls: show them too (when all are shown)."""
        if self._rows is None and self.known != len(self.calls):
            self.known = len(self.calls)
            self.virtual_size = Size(self.size.width, self.known)
            self.refresh()

    @property
    def current_call(self) -> ToolCall | None:
        current = self.current
        return None if current is None else self.calls[current]

    @property
    def current(self) -> int | None:
        """The place of the call under the cursor."""
        rows = self.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    def on_screen(self) -> list[ToolCall]:
        """The calls on screen."""
        rows, top = self.rows, int(self.scroll_y)
        return [self.calls[row] for row in rows[top : top + self.size.height]]

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = row_styles(self)
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        rows = self.rows
        if row >= len(rows):
            return Strip.blank(width, self._base)
        call = self.calls[rows[row]]
        summary = self.summaries.get(call.key)
        narrow = self.size.width < WIDE_FROM
        error = call.result is not None and call.result.is_error
        status = summary.status if summary else "…"
        known = self.transcript.tokens(call)
        tokens = "" if known is None else f"{'~' if known[1] else ''}{known[0]:,}"
        tool = fit(f"{'  ' * (call.depth - 1)}└ {call.tool}" if call.depth else call.tool, 12 if narrow else 16)
        mark = COMPACTED if call.key in self.compacted else " "
        gap = " " if narrow else "  "
        line = Text(no_wrap=True, end="")
        line.append(f"{call.index:>5}")
        line.append(f"{mark} ", self._styles["calllist--compacted"])
        if narrow:
            line.append(f"{tool}{gap}")
            line.append(f"{_recorded_size(call, short=True):>7}", self._styles["calllist--error"] if error else None)
        else:
            turn = str(call.turn) if call.turn else "-"
            line.append(f"{turn:>4}{gap}{tool}{gap}")
            line.append(f"{_recorded_size(call):<14}", self._styles["calllist--error"] if error else None)
        line.append(f"{gap}{tokens:>7}{gap}")
        style = {"same": "calllist--same", "differs": "calllist--differs"}.get(status, "calllist--muted")
        line.append(f"{SHORT_STATUS.get(status, status):<9}" if narrow else f"{status:<14}", self._styles[style])
        line.append(gap)
        line.append(
            listed_arguments(call, max(ARGUMENTS_AT_LEAST, width - line.cell_len)), self._styles["calllist--muted"]
        )
        row_style = self._base + self._styles["calllist--cursor"] if row == self.cursor else self._base
        strip = Strip(list(line.render(self.app.console))).apply_style(row_style)
        return strip.crop_extend(scroll_x, scroll_x + width, row_style)

    def on_resize(self, event: Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows))

    def action_move(self, rows: int) -> None:
        if len(self.rows):
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + rows))

    def watch_cursor(self, old: int, new: int) -> None:
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, immediate=True)
        self.refresh()
        rows = self.rows
        if 0 <= new < len(rows):
            self.post_message(self.Highlighted(rows[new]))

    def on_click(self, event) -> None:  # noqa: ANN001 - a textual Click event
        if len(self.rows):
            self.cursor = min(len(self.rows) - 1, int(self.scroll_y) + event.y)


class TranscriptScreen(ReportsFailures, ExportsSessions, StyledOnce):
    """The transcript's calls; below, the selected call recorded, replayed, the difference, the
    conversation around it, and its agent's context."""

    BINDINGS = [
        Binding("o,enter", "open_call", "Open", tooltip="Open the call's window in the viewer"),
        Binding(
            "left,left_square_bracket", "switch_tab(-1)", "Previous tab", group=TABS, tooltip="The tab before"
        ),
        Binding("right,right_square_bracket", "switch_tab(1)", "Next tab", group=TABS, tooltip="The next tab"),
        Binding(
            "f",
            "cycle_filter",
            "Filter",
            tooltip="Show the calls that differ, then the errors, then the selected call's tool, then every call",
        ),
        Binding("slash", "search", "Search", tooltip="Search the whole session: conversation, arguments, outputs"),
        Binding("F", "toggle_follow", "Follow", tooltip="Follow a session still being written, or stop"),
        Binding("c", "copy('shown')", "Copy", tooltip="Copy the output shown"),
        Binding("E", "export", "Export", show=False, tooltip="Export the session as one HTML page or Markdown"),
        Binding("y", "copy('replayed')", "Copy replayed", tooltip="Copy the replayed output"),
        Binding("escape", "back", "Back", tooltip="Back to every call after a search, else to where it came from"),
        Binding("w", "app.workspace", "Workspace", show=False, tooltip="Back to the workspace"),
        Binding("q", "app.quit", "Quit"),
    ]
    HELP_SECTION = ("The transcript (`t`)", (ChartRows,))
    """The help's first section when it is opened here: this screen's keys, then the context chart's."""
    DEFAULT_CSS = """
    TranscriptScreen {
        #about { height: auto; padding: 0 1; background: $boost; }
        #columns { height: 1; padding: 0 0; color: $text-muted; text-style: bold; }
        CallList { height: 1fr; }
        #detail { height: 1fr; }
        #summary { height: auto; padding: 0 1; }
        #difference, #conversation { padding: 0 1; }
        #tab-difference VerticalScroll, #tab-conversation VerticalScroll {  /* the focus shown as the outputs' */
            border-left: tall $border-blurred;  /* border shows it, by its left edge: no row taken at 80x24 */
            &:focus { border-left: tall $border; }
        }
        &.-context #columns, &.-context CallList, &.-context #summary { display: none; }
    }
    """

    class OpenCall(Message):
        """Show this call's file in the viewer, at its window, with the panel set to the call."""

        def __init__(self, replay: Replay) -> None:
            super().__init__()
            self.replay = replay

    class _Replayed(Message):
        def __init__(self, summaries: dict[Key, Summary]) -> None:
            super().__init__()
            self.summaries = summaries

    class _Grew(Message):
        pass

    def __init__(self, transcript: Transcript, replayer: Replayer, at_line: int | None = None) -> None:
        """``at_line``: show first the call whose record is on this line of the session's log."""
        super().__init__()
        self.transcript = transcript
        self.replayer = replayer
        self.at_line = at_line
        self.filter = 0
        self.tool_filter = ""
        self.search_hits: set[Key] | None = None
        self.search_text = ""
        self.searching = ""
        """The pattern being searched for, while its search runs (a 1 GB session takes seconds)."""
        self.replay: Replay | None = None
        self.follow_timer: Timer | None = None
        self.reading_on = threading.Lock()
        """Held while the session is read on (a read that takes longer than FOLLOW_SECONDS is not
        joined by a second one)."""
        self.replaying = threading.Lock()
        """Held while calls are replayed for the list."""
        self._seen = (-1, False, -1)
        """(calls, complete, compactions) at the last look at the index."""

    def compose(self) -> ComposeResult:
        yield Static(self._about(), id="about")
        yield Static(COLUMNS if self.app.size.width >= WIDE_FROM else NARROW_COLUMNS, id="columns")
        yield CallList(self.transcript, id="calls")
        with Vertical(id="detail"):
            yield Static("", id="summary")
            with TabbedContent(id="outputs"):
                for name, label in OUTPUT_TABS.items():
                    with TabPane(label, id=f"tab-{name}"):
                        yield OutputArea(id=name)
                with TabPane("Difference", id="tab-difference"), VerticalScroll():
                    yield Static("", id="difference")
                with TabPane("Conversation", id="tab-conversation"), VerticalScroll():
                    yield Static("", id="conversation")
                with TabPane("Context", id="tab-context"):
                    yield ContextView(self.transcript, id="context")
        yield FittedFooter()

    def _about(self) -> str:
        transcript = self.transcript
        count = transcript.problem_count
        problems = f" · {plural(count, 'unreadable record')} skipped" if count else ""
        subagents = f" · {plural(len(transcript.subagents), 'subagent')}" if transcript.subagents else ""
        sessions = transcript.boundaries.new_sessions()
        compactions = len(transcript.boundaries) - sessions
        restarts = f" · {plural(compactions, 'compaction')}" if compactions else ""
        restarts += f" · {plural(sessions + 1, 'session')}" if sessions else ""
        reading = "" if transcript.complete else f" · [b]reading {transcript.index.progress():.0%}[/b]"
        shown = self._shown_note()
        following = " · [b]following[/b]" if self.follow_timer is not None else ""
        searching = f" · [b]searching /{escape(self.searching)}/…[/b]" if self.searching else ""
        calls = plural(len(transcript.calls), "tool call")
        # a path wider than the line (inside its padding) would be broken where the line ends, mid-word
        line = self.app.size.width - 2
        path, root = (escape(cut_middle(each, line)) for each in (transcript.path, self.replayer.root))
        head = f"[b]{path}[/b] · {transcript.format} · {calls}{subagents}{restarts} · replayed against {root}"
        tail = f"{problems}{reading}{shown}{following}{searching}"
        return head + self._elsewhere(line - Text.from_markup(head + tail).cell_len) + tail

    def _elsewhere(self, room: int) -> str:
        """Where the session ran, when that is outside the directory its calls are replayed against
        (a session opened from the browser: its reads differ because the files are not those it read);
        ``room``: the cells the rest of the header leaves on its first row."""
        cwd, root = self.transcript.cwd, os.path.abspath(self.replayer.root)
        if not cwd or not os.path.isabs(cwd) or os.path.normpath(cwd) == root or cwd.startswith(root.rstrip("/") + "/"):
            return ""
        room -= len(" (the session ran in )")
        # cut to the row's room when that leaves 48 cells, else (on a second row) to half the line,
        # at least 48: a header of two lines at 80x24, not three; whole when wide
        width = room if room >= 48 else max(48, self.app.size.width // 2)
        return f" [b](the session ran in {escape(cut_middle(cwd, width))})[/b]"

    def _shown_note(self) -> str:
        if self.filter == 0 and self.search_hits is None:
            return ""
        parts = [] if self.filter == 0 else [f"{self.tool_filter} calls" if self.filter == 3 else FILTERS[self.filter]]
        if self.search_hits is not None:
            parts.append(f"matching /{escape(self.search_text)}/")
        return " · showing " + ", ".join(parts)

    def on_resize(self, event: Resize) -> None:
        self.query_one("#columns", Static).update(COLUMNS if event.size.width >= WIDE_FROM else NARROW_COLUMNS)
        self.query_one("#about", Static).update(self._about())

    def on_mount(self) -> None:
        # Tab goes between the list and the tab shown: the row of tabs is no stop (← → and [ ] switch them
        # wherever the focus is), which was a third stop whose keys were those of the screen.
        self.query_one("#outputs Tabs", Tabs).can_focus = False
        self.query_one(CallList).focus()
        # Replaying competes with the first paint (for the GIL): start once the list is on screen.
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        self.transcript.build.resume()  # the first rows are on screen: read the rest
        if len(self.transcript.calls):
            self._show(0)
        self._watch()
        self.set_interval(WATCH_SECONDS, self._watch)

    def _watch(self) -> None:
        """Take in what the index read since the last look, and replay the calls on screen."""
        try:
            calls = self.query_one(CallList)
        except NoMatches:  # the screen was taken down (another session opened) with this look due
            return
        transcript = self.transcript
        seen = (len(transcript.calls), transcript.complete, len(transcript.boundaries))
        if seen != self._seen:
            finished = seen[1] and not self._seen[1]
            self._seen = seen
            calls.compacted = _compactions(transcript)
            calls.grew()
            if finished:  # subagents' calls may have been placed: the cursor stays on its call
                self._apply_filter()
            if finished:
                self.query_one(ContextView).refresh_report()
            if calls.current is None and len(calls.rows):
                self._show(calls.rows[0])
            self.query_one("#about", Static).update(self._about())
        if self.at_line is not None:
            self._go_to_line(calls)
        waiting = [call for call in calls.on_screen() if call.key not in calls.summaries]
        if waiting and not self.replaying.locked():
            self._replay_calls(waiting)

    def _go_to_line(self, calls: CallList) -> None:
        """Put the cursor on the first call whose record is on line ``at_line`` of the session's log,
        once the index has read it (found by the index's column of lines: no call is read)."""
        index = self.transcript.index
        with index.lock:
            lines = index.calls.line
            number = bisect.bisect_left(lines, self.at_line or 0)
            found = number < len(lines) and lines[number] == self.at_line
        if found or self.transcript.complete:
            self.at_line = None
        place = self.transcript.calls.place_of(0, number) if found else None
        if place is not None and place in calls.rows:
            calls.cursor = calls.rows.index(place)

    @work(thread=True, group="replay", exit_on_error=False, description="replaying the calls")
    def _replay_calls(self, calls: Sequence[ToolCall]) -> None:
        with self.replaying:
            self._replay_each(calls)

    def _replay_each(self, calls: Sequence[ToolCall]) -> None:
        """Replay calls and count their outputs' tokens (those the usage recorded does not give),
        in a worker's thread, posting what the list shows of them a batch at a time."""
        worker = get_current_worker()
        batch: dict[Key, Summary] = {}
        for call in calls:
            if worker.is_cancelled:
                return
            replay = self.replayer.replay(call)
            tokens = None if replay.recorded is None else self.transcript.count_tokens(call, Workspace.count_tokens)
            batch[call.key] = Summary(replay.status, tokens)
            if len(batch) >= 200:
                self.post_message(self._Replayed(batch))
                batch = {}
        self.post_message(self._Replayed(batch))

    @on(_Replayed)
    def _replayed(self, event: _Replayed) -> None:
        calls = self.query_one(CallList)
        calls.summaries.update(event.summaries)
        if self.filter in (1, 2):  # replayed, and read: a skimmed output's error flag is known now
            self._apply_filter()
        if any(summary.tokens is not None for summary in event.summaries.values()):
            self.query_one(ContextView).refresh_report()  # outputs counted: the costliest may change
        calls.refresh()

    @on(TabbedContent.TabActivated, "#outputs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        """The context (of the agent of the call under the cursor) takes the screen (the list is hidden), and its
        rows take the keys (PgDn scrolls them, no Tab needed); another tab gives the list back."""
        context = event.pane.id == "tab-context"
        self.set_class(context, "-context")
        if context:
            self.query_one(ChartRows).focus()
        elif self.focused is None or isinstance(self.focused, ChartRows):
            self.query_one(CallList).focus()

    @on(CallList.Highlighted)
    def _highlighted(self, event: CallList.Highlighted) -> None:
        self._show(event.index)

    def _show(self, place: int) -> None:
        call = self.transcript.calls[place]
        index, agent = self.transcript.context_of(call)
        self.query_one(ContextView).show_agent(call.source, agent, call.turn)
        self._load(call)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False, description="loading a call")
    def _load(self, call: ToolCall) -> None:
        """Replay the call and diff the outputs off the UI thread (outputs can be megabytes)."""
        replay = self.replayer.replay(call)
        shown = difference(replay.recorded, None if replay.result is None else replay.result.text)
        self.app.call_from_thread(self._display, replay, shown, self._conversation(call))

    def _display(self, replay: Replay, shown: RenderableType, conversation: Text) -> None:
        if self.query_one(CallList).current_call is not replay.call:
            return  # no longer the call under the cursor (or no call is: the details say why)
        self.replay = replay
        call = replay.call
        if replay.plan is None or replay.reason:
            how = f"not replayable: {replay.reason}"
        else:
            how = (
                f"replayed with the {replay.plan.profile} profile as "
                f"{replay.plan.tool} {arguments_line(replay.plan.arguments, 80)}"
            )
        turn = f"turn {call.turn}" if call.turn else "before any turn"
        agent = "" if call.starter is None and not call.agent else f" of the subagent of #{call.parent}"
        if call.starter is None and call.agent:
            agent = f" of subagent {call.agent}"
        compaction = self.query_one(CallList).compacted.get(call.key)
        boundary = None if compaction is None else compaction[0].boundary(compaction[1])
        if boundary is None:
            after = ""
        else:
            after = (
                "first of a new session · "
                if boundary.new_session
                else f"first after the {compaction_note(boundary)} · "
            )
        status = () if how.startswith(replay.status) else (" · ", (replay.status, "bold"))
        self.query_one("#summary", Static).update(
            Text.assemble((f"#{call.index} ", "bold"), f"{turn}{agent} · {after}{call.tool} · {how}", *status)
        )
        self.query_one("#recorded", OutputArea).show(_recorded(replay))
        self.query_one("#received", OutputArea).show(_received(replay))
        self.query_one("#replayed", OutputArea).show(_replayed(replay))
        self.query_one("#difference", Static).update(shown)
        self.query_one("#conversation", Static).update(conversation)

    def _conversation(self, call: ToolCall) -> Text:
        """The prompts, text and thinking between the previous call of the main agent and the next."""
        events = self.transcript.conversation(call)
        out = Text()
        if not events:
            out.append("(a subagent's call: its conversation is in its own transcript)", "dim")
            return out
        for event in events:
            if event.kind == "call":
                out.append(f"▶ #{call.index} {call.tool}({short_arguments(call.arguments, 100)})\n", "bold")
            elif event.kind == "thinking":
                out.append(f"▸ thinking ({plural(event.chars, 'char')}): ", "dim italic")
                out.append(" ".join(event.text.split())[:120] + "\n", "dim italic")
            elif event.kind == "summary":
                out.append("summary of the compacted conversation: ", "bold magenta")
                out.append(" ".join(event.text.split())[:300] + "\n")
            else:
                out.append(
                    "user: " if event.kind == "prompt" else "assistant: ",
                    "bold cyan" if event.kind == "prompt" else "bold",
                )
                out.append(event.text.rstrip() + "\n")
        return out

    # -- filter and search ----------------------------------------------------------------------------

    def action_cycle_filter(self) -> None:
        self.filter = (self.filter + 1) % len(FILTERS)
        if FILTERS[self.filter] == "this tool":
            self.tool_filter = self.replay.call.tool if self.replay is not None else ""
        if FILTERS[self.filter] == "calls that differ":
            self._replay_every_call()
        self._apply_filter()
        shown = f"{self.tool_filter} calls" if FILTERS[self.filter] == "this tool" else FILTERS[self.filter]
        self.notify(f"Showing {shown}.")

    @work(thread=True, group="replay-all", exclusive=True, exit_on_error=False, description="replaying every call")
    def _replay_every_call(self) -> None:
        """Replay the calls not replayed yet (the calls that differ are known once each is)."""
        summaries = self.query_one(CallList).summaries
        calls = self.transcript.calls
        keys = [key for key in calls.keys() if key not in summaries]  # noqa: SIM118 - a CallList, not a dict
        for first in range(0, len(keys), 200):
            if self.filter != 1:
                return
            self._replay_each([calls.call(*key) for key in keys[first : first + 200]])

    def _apply_filter(self) -> None:
        """Show the calls the filter and the search let through, by the index's columns (no call is read)."""
        shown = self.query_one(CallList)
        transcript, hits = self.transcript, self.search_hits
        if self.filter == 0 and hits is None:
            shown.show_rows(None)
        else:
            rows = []
            summaries = shown.summaries
            for place, (source, number) in enumerate(transcript.calls.keys()):
                index = transcript.index_of(source)
                if hits is not None and (source, number) not in hits:
                    continue
                if self.filter == 1:
                    summary = summaries.get((source, number))
                    passes = summary is not None and summary.status in ("differs", "uncertain")
                elif self.filter == 2:
                    passes = index.calls.r_error[number] == 1
                else:
                    passes = self.filter == 0 or index.strings[index.calls.tool[number]] == self.tool_filter
                if passes:
                    rows.append(place)
            shown.show_rows(rows)
            if not rows:
                self._show_nothing()
        self.query_one("#about", Static).update(self._about())

    def _show_nothing(self) -> None:
        """No call passes the filter and the search: say so, and how to see calls again. ``replay`` stays
        the last call shown: the "this tool" filter takes its tool."""
        kind = "" if self.filter == 0 else f"{self.tool_filter} calls" if self.filter == 3 else FILTERS[self.filter]
        if self.search_hits is None:
            what, ways = kind, "f shows the next filter"
        else:
            searched = "an empty search (/ then Enter) shows"
            what = f"{kind or 'calls'} match /{self.search_text}/"
            ways = f"{searched} them all, f the next filter" if kind else f"{searched} every call"
        self.query_one("#summary", Static).update(Text.assemble((f"No {what}", "bold"), f": {ways}."))
        for output in self.query(OutputArea):
            output.show("")
        self.query_one("#difference", Static).update("")
        self.query_one("#conversation", Static).update("")

    async def action_search(self) -> None:
        def searched(pattern: str | None) -> None:
            if pattern is None:
                return
            if not pattern:
                self._clear_search()
                return
            self.search_text = self.searching = pattern
            self.query_one("#about", Static).update(self._about())
            self._search(smart_case(pattern))

        hint = "Case matters only with a capital letter."
        await self.app.push_screen(
            PromptScreen("Search the session (regex; empty: all calls)", "pattern", _pattern_problem, hint=hint),
            searched,
        )

    async def action_export(self) -> None:
        await self.ask_export(self.transcript.path, self.transcript.parsed.session_id)

    def _clear_search(self) -> None:
        self.search_hits = None
        self.searching = ""
        self.workers.cancel_group(self, "search")
        self._apply_filter()

    def action_back(self) -> None:
        """Escape: a search's calls back to every call (as in the session browser), else back to where
        the transcript came from."""
        if self.search_hits is not None or self.searching:
            self._clear_search()
        else:
            self.app.pop_screen()

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="searching")
    def _search(self, pattern: Matcher) -> None:
        """Calls whose arguments, output or surrounding conversation match: in linear time (RE2), or
        by ``re`` in a child process, stopped past its time limit or when the search is replaced."""
        try:
            found = self.transcript.search(pattern, get_current_worker().cancelled_event)
        except Cancelled:
            return
        except TranscriptError as error:  # re, in its child, took too long or refused the pattern
            self.app.call_from_thread(self._search_failed, str(error))
            return
        finally:
            pattern.close()
        self.app.call_from_thread(self._searched, found)

    def _searched(self, hits: set[Key]) -> None:
        self.search_hits = hits
        self.searching = ""
        self._apply_filter()
        self.notify(f"{plural(len(hits), 'call')} match /{self.search_text}/.")

    def _search_failed(self, problem: str) -> None:
        self.searching = ""
        self.query_one("#about", Static).update(self._about())
        self.notify(f"Cannot search: {problem}", severity="warning")

    # -- follow -----------------------------------------------------------------------------------------

    def action_toggle_follow(self) -> None:
        if self.follow_timer is not None:
            self.follow_timer.stop()
            self.follow_timer = None
            self.notify("Stopped following the session.")
        elif self.transcript.collector is None:
            self.notify(
                "Only a JSON Lines session can be followed: this one is one JSON document, written whole.",
                severity="warning",
            )
            return
        else:
            self.follow_timer = self.set_interval(FOLLOW_SECONDS, self._read_on)
            self.notify("Following the session: new calls appear as they are written.")
        self.query_one("#about", Static).update(self._about())

    def _read_on(self) -> None:
        if self.transcript.complete:  # the first reading is over: read on from where it ended
            self._follow()

    @work(thread=True, group="follow", exit_on_error=False)
    def _follow(self) -> None:
        if not self.reading_on.acquire(blocking=False):
            return  # the last read is still going on
        try:
            if self.transcript.follow():
                self.post_message(self._Grew())
        finally:
            self.reading_on.release()

    @on(_Grew)
    def _grew(self, event: _Grew) -> None:
        shown = self.query_one(CallList)
        at_end = shown.cursor >= len(shown.rows) - 1
        shown.compacted = _compactions(self.transcript)
        self._apply_filter()
        if at_end and len(shown.rows):
            shown.cursor = len(shown.rows) - 1
        self.query_one(ContextView).refresh_report()

    # -- actions ----------------------------------------------------------------------------------------

    def action_switch_tab(self, step: int) -> None:
        """The next (1) or previous (-1) tab below the list, going round."""
        outputs = self.query_one("#outputs", TabbedContent)
        panes = [pane.id for pane in outputs.query(TabPane)]
        outputs.active = str(panes[(panes.index(outputs.active) + step) % len(panes)])

    def action_copy(self, which: str) -> None:
        """Copy an output: ``shown``, the one whose tab is open (as logged when another tab is)."""
        replay = self.replay
        if replay is None or self.query_one(CallList).current_call is None:
            self.notify("No call is shown.", severity="warning")
            return
        if which == "shown":
            active = self.query_one("#outputs", TabbedContent).active.removeprefix("tab-")
            which = active if active in OUTPUT_TABS else "recorded"
        texts = {
            "recorded": replay.recorded,
            "received": replay.received,
            "replayed": replay.result.text if replay.result else None,
        }
        text, what = texts[which], OUTPUT_TABS[which].lower()
        if text is None:
            self.notify(f"This call has no output {what}.", severity="warning")
            return
        copy = getattr(self.app, "copy_text", None)
        if copy is not None:
            copy(text, f"the output {what}")
        else:
            self.app.copy_to_clipboard(text)

    def action_open_call(self) -> None:
        current = self.query_one(CallList).current_call
        if current is not None:
            self._open(current)

    @work(thread=True, exclusive=True, group="open", exit_on_error=False, description="opening")
    def _open(self, call: ToolCall) -> None:
        replay = self.replayer.replay(call)
        if replay.plan is None or replay.reason:
            self.notify("This call is not a file read: there is no window to open.", severity="warning")
            return
        self.post_message(self.OpenCall(replay))


def _compactions(transcript: Transcript) -> dict[Key, tuple[Boundaries, int]]:
    """The first call after each compaction (of the agent compacted), with the compaction's row."""
    found: dict[Key, tuple[Boundaries, int]] = {}
    sources = [(0, transcript.index)] + [(child.source, child.transcript.index) for child in transcript.children]
    for source, index in sources:
        found.update(((source, number), (index.boundaries, row)) for number, row in index.compacted_calls().items())
    return found


def _recorded_size(call: ToolCall, short: bool = False) -> str:
    """The recorded output's size: its characters, or (until it is read) ``≤`` its record's bytes;
    ``short``: without the word "chars"."""
    if call.result is None:
        return "none" if short else "no result"
    if call.result.chars is None:
        return f"≤{byte_size(call.result.where.size)}"
    return f"{call.result.chars:,}" if short else plural(call.result.chars, "char")


def _pattern_problem(text: str) -> str | None:
    try:
        smart_case(text).close()
    except ViewError as error:
        return f"Invalid regex: {error.message}"
    return None


def _recorded(replay: Replay) -> str:
    return replay.recorded if replay.recorded is not None else "(no result recorded)"


def _received(replay: Replay) -> str:
    if replay.received is not None:
        return replay.received
    if replay.recorded is None:
        return "(no result recorded)"
    return f"(not known: {replay.unreceived})"


def _replayed(replay: Replay) -> str:
    return replay.result.text if replay.result is not None else f"(not replayable: {replay.reason})"
